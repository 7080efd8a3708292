// A header: everything sits inside its include guard.
#ifndef REGISTRY_HPP
#define REGISTRY_HPP // @def macro REGISTRY_HPP

#include <cstddef>
#include <map>
#include <string>

extern "C" {
int registry_version(void); // @decl function registry_version
}
extern "C" void registry_reset(int code); // @decl function registry_reset

namespace reg { // @def module reg

extern int instances; // @decl variable reg::instances
const std::size_t kBuckets = 16; // @def constant reg::kBuckets

typedef void (*Callback)(int code); // @def type reg::Callback

template <typename K, typename V>
class Registry { // @def class reg::Registry
public:
    Registry() = default; // @def constructor reg::Registry::Registry
    Registry(const Registry &) = delete; // @def constructor reg::Registry::Registry
    ~Registry() { clear(); } // @def method reg::Registry::~Registry @ref call clear in reg::Registry::~Registry

    template <typename F>
    void for_each(F f) const { // @def method reg::Registry::for_each
        for (const auto &entry : entries_) f(entry.first, entry.second);
    }

    V *find(const K &key); // @decl method reg::Registry::find
    std::size_t size() const noexcept { return entries_.size(); } // @def method reg::Registry::size
    void clear(); // @decl method reg::Registry::clear

    Callback on_change = nullptr; // @def field reg::Registry::on_change
    void (*on_clear)(); // @def field reg::Registry::on_clear

private:
    std::map<K, V> entries_; // @def field reg::Registry::entries_
    int hits_ = 0, misses_ = 0; // @def field reg::Registry::hits_ @def field reg::Registry::misses_
};

template <typename K, typename V>
V *Registry<K, V>::find(const K &key) { // @def method reg::Registry::find
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
}

template <typename K, typename V>
void Registry<K, V>::clear() { // @def method reg::Registry::clear
    entries_.clear(); // @ref call clear in reg::Registry::clear
}

struct Entry { // @def struct reg::Entry
    std::string key; // @def field reg::Entry::key
    int value; // @def field reg::Entry::value
};

bool operator==(const Entry &a, const Entry &b); // @decl function reg::operator==

inline bool operator<(const Entry &a, const Entry &b) { // @def function reg::operator<
    return a.key < b.key;
}

Entry *make_entry(const std::string &key); // @decl function reg::make_entry

} // namespace reg

#endif // REGISTRY_HPP
