//! The lines git's diff removes and adds, decided as `git log -G` decides them.
//!
//! `git log -G` runs git's own diff (xdiff's Myers, never minimal, no indent heuristic) and
//! looks at its `+` and `-` lines. Myers' diff is minimal only while it is cheap: xdiff first
//! drops lines found in one file only (and frequent lines amid them), then splits the box at
//! a middle snake, and gives up minimality on a costly box (a good snake past 256 edits, or
//! the cost bound √N) by cutting at the furthest-reaching diagonal. A line only moved then
//! shows as removed and added again where a minimal diff keeps it. Any other diff, however
//! good, may decide such a line otherwise, so this takes xdiff's steps with its constants:
//! the discarding of unmatched lines, the split heuristics and the cost bound.
//!
//! Hunk positions are not computed: git slides a group of changed lines over equal lines
//! before printing it, which moves a hunk but never changes which texts it removes and adds,
//! and that is all `-G` looks at.

use rustc_hash::FxHashMap;

/// A box's edit cost past which a good snake may end the search for the middle one.
const HEUR_MIN_COST: i64 = 256;
/// The least cost bound of a box's search.
const MAX_COST_MIN: i64 = 256;
/// The length of a run of equal lines that counts as a good snake.
const SNAKE_CNT: i64 = 20;
/// A diagonal ends the search early when its reach, less its distance from the middle one,
/// passes this many times the edit cost.
const K_HEUR: i64 = 4;
/// The cap of the count (about √ of a file's lines) from which a line the other file holds
/// that many times counts as frequent.
const MAX_EQLIMIT: i64 = 1024;
/// How far around a frequent line the discarding looks for unmatched lines.
const SIMSCAN_WINDOW: usize = 100;
/// A frequent line amid unmatched ones is dropped when fewer than one line in this many
/// around it (itself counted twice) is frequent.
const KPDIS_RUN: i64 = 4;

/// For each line of `old` and of `new`, whether git's diff removes (adds) it.
pub fn changed<'a>(old: &[&'a [u8]], new: &[&'a [u8]]) -> (Vec<bool>, Vec<bool>) {
    // Classes: equal lines share one number; how often each class occurs on each side.
    // (A fast hash: every line of both files is hashed once.)
    let mut classes: FxHashMap<&'a [u8], usize> = FxHashMap::default();
    classes.reserve(old.len() + new.len());
    let mut counts: Vec<[i64; 2]> = Vec::with_capacity(old.len() + new.len());
    let mut class_of = |lines: &[&'a [u8]], side: usize| -> Vec<usize> {
        lines
            .iter()
            .map(|&line| {
                let next = classes.len();
                let class = *classes.entry(line).or_insert(next);
                if class == counts.len() {
                    counts.push([0, 0]);
                }
                counts[class][side] += 1;
                class
            })
            .collect()
    };
    let ha1 = class_of(old, 0);
    let ha2 = class_of(new, 1);
    let mut rchg1 = vec![false; old.len()];
    let mut rchg2 = vec![false; new.len()];

    // The common head and tail are unchanged.
    let limit = ha1.len().min(ha2.len());
    let head = ha1.iter().zip(&ha2).take_while(|(a, b)| a == b).count();
    let tail = ha1.iter().rev().zip(ha2.iter().rev()).take(limit - head).take_while(|(a, b)| a == b).count();
    let (end1, end2) = (ha1.len() - tail, ha2.len() - tail);

    // Lines of the middle with no equal in the other file are changed; frequent lines amid
    // them are too. The rest is diffed.
    let side1 = Reduced::of(&ha1, head..end1, |class| counts[class][1], &mut rchg1);
    let side2 = Reduced::of(&ha2, head..end2, |class| counts[class][0], &mut rchg2);

    let mut myers = Myers::new(side1.ha.len(), side2.ha.len());
    let mut boxes =
        vec![Area { off1: 0, lim1: side1.ha.len() as i64, off2: 0, lim2: side2.ha.len() as i64, need_min: false }];
    while let Some(b) = boxes.pop() {
        let (h1, h2) = (&side1.ha, &side2.ha);
        let Area { mut off1, mut lim1, mut off2, mut lim2, need_min } = b;
        while off1 < lim1 && off2 < lim2 && h1[off1 as usize] == h2[off2 as usize] {
            off1 += 1;
            off2 += 1;
        }
        while off1 < lim1 && off2 < lim2 && h1[lim1 as usize - 1] == h2[lim2 as usize - 1] {
            lim1 -= 1;
            lim2 -= 1;
        }
        if off1 == lim1 {
            for i in off2..lim2 {
                rchg2[side2.index[i as usize]] = true;
            }
        } else if off2 == lim2 {
            for i in off1..lim1 {
                rchg1[side1.index[i as usize]] = true;
            }
        } else {
            let split = myers.split(h1, off1, lim1, h2, off2, lim2, need_min);
            boxes.push(Area { off1: split.i1, lim1, off2: split.i2, lim2, need_min: split.min_hi });
            boxes.push(Area { off1, lim1: split.i1, off2, lim2: split.i2, need_min: split.min_lo });
        }
    }
    (rchg1, rchg2)
}

/// The lines of a side that take part in the diff, by their line numbers.
#[derive(Default)]
struct Reduced {
    /// The line number of each kept line.
    index: Vec<usize>,
    /// The class of each kept line.
    ha: Vec<usize>,
}

impl Reduced {
    /// The lines of `range` that take part in the diff ([`kept`]); the others are marked
    /// changed in `rchg`.
    fn of(ha: &[usize], range: std::ops::Range<usize>, others: impl Fn(usize) -> i64, rchg: &mut [bool]) -> Reduced {
        let mut side = Reduced::default();
        for (i, keep) in range.clone().zip(kept(ha, range, others)) {
            if keep {
                side.index.push(i);
                side.ha.push(ha[i]);
            } else {
                rchg[i] = true;
            }
        }
        side
    }
}

/// A box of the edit graph still to diff.
struct Area {
    off1: i64,
    lim1: i64,
    off2: i64,
    lim2: i64,
    need_min: bool,
}

/// Where a box is cut, and whether each half must be diffed minimally.
struct Split {
    i1: i64,
    i2: i64,
    min_lo: bool,
    min_hi: bool,
}

/// xdiff's integer square root: the power of two nearest above √n, give or take.
fn bogosqrt(mut n: i64) -> i64 {
    let mut i = 1;
    while n > 0 {
        i <<= 1;
        n >>= 2;
    }
    i
}

/// Which lines of `range` take part in the diff: those the other side holds, except a
/// frequent one (held `√lines` times or more there) amid lines the other side lacks.
fn kept(ha: &[usize], range: std::ops::Range<usize>, others: impl Fn(usize) -> i64) -> Vec<bool> {
    // 0: the other side lacks it; 1: holds it; 2: holds it often.
    let limit = bogosqrt(ha.len() as i64).min(MAX_EQLIMIT);
    let dis: Vec<u8> = ha[range.clone()]
        .iter()
        .map(|&class| match others(class) {
            0 => 0,
            n if n >= limit => 2,
            _ => 1,
        })
        .collect();
    (0..dis.len()).map(|i| dis[i] == 1 || (dis[i] == 2 && !amid_unmatched(&dis, i))).collect()
}

/// Whether the frequent line `i` stands amid runs of unmatched and frequent lines on both
/// sides, with the unmatched ones more than three times as many as the frequent ones.
fn amid_unmatched(dis: &[u8], i: usize) -> bool {
    let start = i.saturating_sub(SIMSCAN_WINDOW);
    let end = (i + SIMSCAN_WINDOW).min(dis.len() - 1);
    let run = |lines: &mut dyn Iterator<Item = &u8>| -> (i64, i64) {
        let (mut unmatched, mut frequent) = (0, 1);
        for &d in lines {
            match d {
                0 => unmatched += 1,
                2 => frequent += 1,
                _ => break,
            }
        }
        (unmatched, frequent)
    };
    let (before, frequent_before) = run(&mut dis[start..i].iter().rev());
    if before == 0 {
        return false;
    }
    let (after, frequent_after) = run(&mut dis[i + 1..=end].iter());
    if after == 0 {
        return false;
    }
    let (unmatched, frequent) = (before + after, frequent_before + frequent_after);
    frequent * KPDIS_RUN < frequent + unmatched
}

/// The furthest-reaching paths of the forward and backward searches, by diagonal.
struct Myers {
    forward: Vec<i64>,
    backward: Vec<i64>,
    /// Diagonal `d` is at `d + offset`.
    offset: i64,
    /// The edit cost at which a box's search stops and cuts at its furthest path.
    max_cost: i64,
}

impl Myers {
    fn new(len1: usize, len2: usize) -> Myers {
        let diagonals = (len1 + len2 + 3) as i64;
        Myers {
            forward: vec![0; diagonals as usize],
            backward: vec![0; diagonals as usize],
            offset: len2 as i64 + 1,
            max_cost: bogosqrt(diagonals).max(MAX_COST_MIN),
        }
    }

    /// Where to cut the box: the middle snake of a shortest path, or past a cost bound the
    /// best of the paths found so far.
    #[allow(clippy::too_many_arguments)]
    fn split(
        &mut self,
        ha1: &[usize],
        off1: i64,
        lim1: i64,
        ha2: &[usize],
        off2: i64,
        lim2: i64,
        need_min: bool,
    ) -> Split {
        let o = self.offset;
        let (kf, kb) = (&mut self.forward, &mut self.backward);
        let at = |d: i64| (d + o) as usize;
        let (dmin, dmax) = (off1 - lim2, lim1 - off2);
        let (fmid, bmid) = (off1 - off2, lim1 - lim2);
        let odd = (fmid - bmid) & 1 != 0;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        kf[at(fmid)] = off1;
        kb[at(bmid)] = lim1;
        let equal = |i1: i64, i2: i64| ha1[i1 as usize] == ha2[i2 as usize];

        let mut ec = 1;
        loop {
            let mut got_snake = false;
            if fmin > dmin {
                fmin -= 1;
                kf[at(fmin - 1)] = -1;
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                kf[at(fmax + 1)] = -1;
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let mut i1 = if kf[at(d - 1)] >= kf[at(d + 1)] { kf[at(d - 1)] + 1 } else { kf[at(d + 1)] };
                let prev = i1;
                let mut i2 = i1 - d;
                while i1 < lim1 && i2 < lim2 && equal(i1, i2) {
                    i1 += 1;
                    i2 += 1;
                }
                if i1 - prev > SNAKE_CNT {
                    got_snake = true;
                }
                kf[at(d)] = i1;
                if odd && bmin <= d && d <= bmax && kb[at(d)] <= i1 {
                    return Split { i1, i2, min_lo: true, min_hi: true };
                }
                d -= 2;
            }

            if bmin > dmin {
                bmin -= 1;
                kb[at(bmin - 1)] = i64::MAX;
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                kb[at(bmax + 1)] = i64::MAX;
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let mut i1 = if kb[at(d - 1)] < kb[at(d + 1)] { kb[at(d - 1)] } else { kb[at(d + 1)] - 1 };
                let prev = i1;
                let mut i2 = i1 - d;
                while i1 > off1 && i2 > off2 && equal(i1 - 1, i2 - 1) {
                    i1 -= 1;
                    i2 -= 1;
                }
                if prev - i1 > SNAKE_CNT {
                    got_snake = true;
                }
                kb[at(d)] = i1;
                if !odd && fmin <= d && d <= fmax && i1 <= kf[at(d)] {
                    return Split { i1, i2, min_lo: true, min_hi: true };
                }
                d -= 2;
            }

            if !need_min {
                if got_snake && ec > HEUR_MIN_COST {
                    // A diagonal that went far, off the middle one not by much, and ends in a
                    // good snake: cut there.
                    let mut best = 0;
                    let mut cut = (0, 0);
                    let mut d = fmax;
                    while d >= fmin {
                        let i1 = kf[at(d)];
                        let i2 = i1 - d;
                        let v = (i1 - off1) + (i2 - off2) - (d - fmid).abs();
                        if v > K_HEUR * ec
                            && v > best
                            && off1 + SNAKE_CNT <= i1
                            && i1 < lim1
                            && off2 + SNAKE_CNT <= i2
                            && i2 < lim2
                            && (1..=SNAKE_CNT).all(|k| equal(i1 - k, i2 - k))
                        {
                            best = v;
                            cut = (i1, i2);
                        }
                        d -= 2;
                    }
                    if best > 0 {
                        return Split { i1: cut.0, i2: cut.1, min_lo: true, min_hi: false };
                    }
                    let mut d = bmax;
                    while d >= bmin {
                        let i1 = kb[at(d)];
                        let i2 = i1 - d;
                        let v = (lim1 - i1) + (lim2 - i2) - (d - bmid).abs();
                        if v > K_HEUR * ec
                            && v > best
                            && off1 < i1
                            && i1 <= lim1 - SNAKE_CNT
                            && off2 < i2
                            && i2 <= lim2 - SNAKE_CNT
                            && (0..SNAKE_CNT).all(|k| equal(i1 + k, i2 + k))
                        {
                            best = v;
                            cut = (i1, i2);
                        }
                        d -= 2;
                    }
                    if best > 0 {
                        return Split { i1: cut.0, i2: cut.1, min_lo: false, min_hi: true };
                    }
                }

                if ec >= self.max_cost {
                    // Enough: cut at the path that reached furthest, forward or backward.
                    let (mut fbest, mut fbest1) = (-1, -1);
                    let mut d = fmax;
                    while d >= fmin {
                        let mut i1 = kf[at(d)].min(lim1);
                        let mut i2 = i1 - d;
                        if lim2 < i2 {
                            i1 = lim2 + d;
                            i2 = lim2;
                        }
                        if fbest < i1 + i2 {
                            fbest = i1 + i2;
                            fbest1 = i1;
                        }
                        d -= 2;
                    }
                    let (mut bbest, mut bbest1) = (i64::MAX, i64::MAX);
                    let mut d = bmax;
                    while d >= bmin {
                        let mut i1 = kb[at(d)].max(off1);
                        let mut i2 = i1 - d;
                        if i2 < off2 {
                            i1 = off2 + d;
                            i2 = off2;
                        }
                        if i1 + i2 < bbest {
                            bbest = i1 + i2;
                            bbest1 = i1;
                        }
                        d -= 2;
                    }
                    return if (lim1 + lim2) - bbest < fbest - (off1 + off2) {
                        Split { i1: fbest1, i2: fbest - fbest1, min_lo: true, min_hi: false }
                    } else {
                        Split { i1: bbest1, i2: bbest - bbest1, min_lo: false, min_hi: true }
                    };
                }
            }
            ec += 1;
        }
    }
}
