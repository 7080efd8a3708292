# Shared set-up for fixture scripts: a pinned, hermetic git environment.
#
# Every script sources this file, then tells its story with plain git commands. Authors,
# dates and the default branch are fixed, and no global or system config is read, so the
# same script builds the same commits (the same ids) on every machine.

set -euo pipefail

export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=/dev/null
export HOME="${HOME:-/nonexistent}"
export GIT_AUTHOR_NAME="Ada Fixture" GIT_AUTHOR_EMAIL="ada@example.com"
export GIT_COMMITTER_NAME="Ada Fixture" GIT_COMMITTER_EMAIL="ada@example.com"
export TZ=UTC LC_ALL=C

# Each commit is one minute after the previous one, from a fixed start.
__fixture_clock=1700000000
tick() {
    __fixture_clock=$((__fixture_clock + 60))
    export GIT_AUTHOR_DATE="@${__fixture_clock} +0000" GIT_COMMITTER_DATE="@${__fixture_clock} +0000"
}

# new_repo DIR: an empty repository on branch `main`, with the settings the tests assume.
new_repo() {
    git init -q -b main "$1"
    cd "$1"
    git config core.autocrlf false
    git config commit.gpgsign false
}

# commit MESSAGE: stage everything and commit it at the next tick.
commit() {
    tick
    git add -A
    git commit -q --allow-empty -m "$1"
}

# write PATH: write standard input to PATH, creating directories.
write() {
    mkdir -p "$(dirname "$1")"
    cat >"$1"
}
