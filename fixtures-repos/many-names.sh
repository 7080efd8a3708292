#!/usr/bin/env bash
# The `many-names` repository: one name defined and declared in more files than a ranking
# reads (its first list holds 200 symbols), in three spellings.
# Usage: many-names.sh DIR
#
# The story: 210 C files each define `flags()`, 30 headers declare it, 40 files define
# `FLAGS()`, and 12 headers declare `Flags()`. Each file's body differs, so no two are the
# same blob.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

mkdir defs decls upper mixed
for n in $(seq 1 210); do
    printf 'int flags(void)\n{\n    return %d;\n}\n' "$n" >"defs/flags_$n.c"
done
for n in $(seq 1 30); do
    printf '/* header %d */\nint flags(void);\n' "$n" >"decls/flags_$n.h"
done
for n in $(seq 1 40); do
    printf 'int FLAGS(void)\n{\n    return %d;\n}\n' "$n" >"upper/flags_$n.c"
done
for n in $(seq 1 12); do
    printf '/* header %d */\nint Flags(void);\n' "$n" >"mixed/flags_$n.h"
done
commit "One name in three spellings, defined and declared in many files"
