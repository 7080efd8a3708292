// A small Swift file exercising the definitions the extractor knows.
import Foundation  // @ref import Foundation

let maxTracks = 500 // @def constant maxTracks
var playCount = 0 // @def variable playCount

typealias TrackID = UUID // @def type TrackID

/// Something that can be played.
protocol Playable { // @def interface Playable
    associatedtype Media // @def type Playable.Media
    var duration: TimeInterval { get } // @def property Playable.duration
    init(title: String) // @decl constructor Playable.init
    func play() throws // @decl method Playable.play
}

enum Genre: String { // @def enum Genre
    case rock, jazz // @def enum_member Genre.rock @def enum_member Genre.jazz
    case classical = "classical" // @def enum_member Genre.classical

    var label: String { rawValue.capitalized } // @def property Genre.label
}

enum Repeat { // @def enum Repeat
    case off // @def enum_member Repeat.off
    case times(Int) // @def enum_member Repeat.times
}

struct Track: Playable { // @def struct Track
    typealias Media = Data // @def type Track.Media
    let id = TrackID() // @def property Track.id
    var title: String // @def property Track.title
    var duration: TimeInterval = 0 // @def property Track.duration
    static let empty = Track(title: "") // @def property Track.empty

    init(title: String) { // @def constructor Track.init
        self.title = title
    }

    func play() throws { // @def method Track.play
        playCount += 1
    }

    mutating func rename(to newTitle: String) { // @def method Track.rename
        title = newTitle
    }

    static func == (lhs: Track, rhs: Track) -> Bool { // @def method Track.==
        lhs.id == rhs.id
    }
}

/// An ordered list of tracks.
final class Playlist { // @def class Playlist
    private(set) var tracks: [Track] = [] // @def property Playlist.tracks
    weak var delegate: PlaylistDelegate? // @def property Playlist.delegate
    var isEmpty: Bool { // @def property Playlist.isEmpty
        tracks.isEmpty
    }

    init() {} // @def constructor Playlist.init

    convenience init(_ tracks: [Track]) { // @def constructor Playlist.init
        self.init()
        self.tracks = tracks
    }

    deinit { // @def method Playlist.deinit
        tracks.removeAll()
    }

    subscript(index: Int) -> Track { // @def method Playlist.subscript
        tracks[index]
    }

    func add(_ track: Track) { // @def method Playlist.add
        func check(_ t: Track) -> Bool { !t.title.isEmpty } // @def function Playlist.add.check
        guard tracks.count < maxTracks, check(track) else { return }
        tracks.append(track)  // @ref call append in Playlist.add
        delegate?.playlistDidChange(self)
    }

    class func shuffled(_ playlist: Playlist) -> Playlist { // @def method Playlist.shuffled
        Playlist(playlist.tracks.shuffled())
    }

    enum SortOrder { // @def enum Playlist.SortOrder
        case title // @def enum_member Playlist.SortOrder.title
    }
}

protocol PlaylistDelegate: AnyObject { // @def interface PlaylistDelegate
    func playlistDidChange(_ playlist: Playlist) // @decl method PlaylistDelegate.playlistDidChange
}

actor Player { // @def class Player
    var current: Track? // @def property Player.current
    func start(_ track: Track) { current = track } // @def method Player.start
}

extension Playlist {
    var totalDuration: TimeInterval { tracks.reduce(0) { $0 + $1.duration } } // @def property Playlist.totalDuration
    func sorted(by order: SortOrder) -> [Track] { tracks } // @def method Playlist.sorted
}

func makeDefaultPlaylist() -> Playlist { // @def function makeDefaultPlaylist
    let local = Playlist()
    return local
}

enum Shape { // @def enum Shape
    case point, line(length: Double) // @def enum_member Shape.point @def enum_member Shape.line
    case rect(Double, Double), circle(radius: Double) // @def enum_member Shape.rect @def enum_member Shape.circle
    indirect case group([Shape]) // @def enum_member Shape.group
}
