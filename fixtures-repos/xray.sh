#!/usr/bin/env bash
# The `xray` repository: code whose structure, not only its text, answers the question.
# Usage: xray.sh DIR
#
# The story: `app/io.py` opens files four ways: with no mode, with 'r', with "w", and through
# `opener`, a function whose name only contains "open"; a string mentions `open(x, 'w')`
# without calling it. `app/util.py` never says "open". `app/broken.py` has a syntax error
# and still a call. `src/lib.rs` unwraps inside a function that returns a Result and inside
# one that does not. `web/api.ts` has a function of six parameters and one of two.
# `drivers/copy.c` is a long C file of many small functions, two of which copy with `memcpy`:
# a query about those calls needs the syntax of the two functions, not of the whole file.
# The branch `refactor` passes the mode as a keyword (`mode="w"`) and adds `app/save.py`,
# whose `open` writes in binary: the same question answers differently there.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write app/io.py <<'PY'
def read_all(path):
    with open(path) as f:
        return f.read()


def read_text(path):
    return open(path, 'r').read()


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def through(path):
    return opener(path, 'w')


HELP = "call open(x, 'w') to write"
PY
write app/util.py <<'PY'
def double(x):
    return x * 2


def many(a, b, c, d, e, f):
    return a + b + c + d + e + f
PY
write app/broken.py <<'PY'
def ok():
    return open("log", "a")

def broken(:
    pass
PY
write src/lib.rs <<'RS'
use std::fs;

pub fn load(path: &str) -> Result<String, std::io::Error> {
    let text = fs::read_to_string(path).unwrap();
    Ok(text)
}

pub fn size(path: &str) -> usize {
    fs::read_to_string(path).unwrap().len()
}
RS
mkdir -p drivers
{
    printf '#include <string.h>\n'
    for i in $(seq 0 23); do
        printf '\n/* Step %d of the copy: a comment long enough to make each function a few lines. */\n' "$i"
        printf 'static void copy_step_%d(char *dst, const char *src, size_t n)\n{\n\tif (!dst || !src)\n\t\treturn;\n' "$i"
        if [ "$i" = 3 ] || [ "$i" = 19 ]; then
            printf '\tmemcpy(dst, src, n);\n'
        else
            printf '\tfor (size_t i = 0; i < n; i++)\n\t\tdst[i] = src[i] ^ %d;\n' "$i"
        fi
        printf '\tdst[0] = (char)n;\n}\n'
    done
} > drivers/copy.c
write web/api.ts <<'TS'
export function create(a: number, b: number, c: number, d: number, e: number, f: number): number {
  return a + b + c + d + e + f;
}

export function pair(a: string, b: string): string {
  return a + b;
}
TS
commit "Files opened four ways, unwraps, and functions of many parameters"

git checkout -q -b refactor
write app/io.py <<'PY'
def read_all(path):
    with open(path) as f:
        return f.read()


def read_text(path):
    return open(path, 'r').read()


def write_text(path, text):
    with open(path, mode="w") as f:
        f.write(text)


def through(path):
    return opener(path, 'w')


HELP = "call open(x, 'w') to write"
PY
write app/save.py <<'PY'
def save(path, data):
    with open(path, "wb") as f:
        f.write(data)
PY
commit "Modes as keywords; a binary writer"
git checkout -q main
