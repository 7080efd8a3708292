#!/usr/bin/env bash
# The `many-files` repository: more files than a small index run takes (2,048 blobs), so that
# its first index is a large run, with its own writer threads and its own object store.
# Usage: many-files.sh DIR
#
# The story: 2,200 small Rust files in 22 directories, `dNN/fNNNN.rs`, each defining
# `item_N` and calling `shared_helper`; committed and packed, as a clone would have them.
# Branch `next` then rewrites every tenth file to call `next_helper` as well, left as
# loose objects, as fresh commits are.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

mkdir d{00..21}
for n in $(seq 0 2199); do
    printf -v file 'd%02d/f%04d.rs' $((n / 100)) "$n"
    printf 'pub fn item_%d() -> u32 {\n    shared_helper(%d)\n}\n' "$n" "$n" >"$file"
done
commit "Two thousand two hundred files"
git repack -adq

git checkout -q -b next
for n in $(seq 0 10 2199); do
    printf -v file 'd%02d/f%04d.rs' $((n / 100)) "$n"
    printf 'pub fn item_%d() -> u32 {\n    next_helper(shared_helper(%d))\n}\n' "$n" "$n" >"$file"
done
commit "Every tenth file calls next_helper"
git checkout -q main
