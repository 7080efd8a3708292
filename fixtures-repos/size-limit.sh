#!/usr/bin/env bash
# The `size-limit` repository: a file just above the default size limit (1 MiB), for the
# tests that change `codecompass.maxFileSize` after indexing.
# Usage: size-limit.sh DIR
#
# The story: `big.rs` defines `big_first` and then runs to 1.5 MiB of comments; `small.rs`
# defines `small_fn`. Branch `other` adds `other.rs` with `other_fn`.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

{
    echo "pub fn big_first() {}"
    for _ in $(seq 1 24576); do
        echo "// filler line of sixty-four bytes, to take the file over 1 MiB."
    done
} >big.rs
write small.rs <<'RS'
pub fn small_fn() {}
RS
commit "A big file and a small one"

git checkout -q -b other
write other.rs <<'RS'
pub fn other_fn() {}
RS
commit "Another file"
git checkout -q main
