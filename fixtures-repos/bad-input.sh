#!/usr/bin/env bash
# The `bad-input` repository: files that must never stop indexing. Usage: bad-input.sh DIR
#
# Each file is either skipped with a reason or indexed as far as it parses:
#  - a PNG-like binary (NUL bytes early),
#  - a 50 MB Rust file (over the 1 MiB default limit),
#  - a Latin-1 (non-UTF-8) C file,
#  - an empty Python file,
#  - a Rust file with a syntax error between two good functions,
#  - a path that is not UTF-8,
#  - a file whose language is known only from its `#!` line,
#  - a lock file and a minified bundle (parsed as plain text only),
#  - a symlink.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00' >logo.png
{
    echo "pub fn huge_first() {}"
    head -c 52428800 /dev/zero | tr '\0' '\n'
} >huge.rs
printf '/* caf\xe9 au lait */\nint latin1_function(void) { return 1; }\n' >latin1.c
: >empty.py
write broken.rs <<'RS'
fn before_error() -> u32 {
    1
}

fn broken( {

fn after_error() -> u32 {
    2
}
RS
printf 'fn odd_path_function() {}\n' >"$(printf 'odd-\xff.rs')"
write bin/deploy <<'SH'
#!/usr/bin/env bash
deploy_everything() {
    echo deploying
}
SH
chmod +x bin/deploy
write Cargo.lock <<'LOCK'
[[package]]
name = "lock_only_package"
version = "1.0.0"
LOCK
printf 'function minified_fn(){return 1};%.0s' $(seq 1 400) >app.min.js
ln -s broken.rs link-to-broken.rs
commit "bad input"
