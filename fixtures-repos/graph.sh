#!/usr/bin/env bash
# The `graph` repository: a small Python service whose calls and imports the symbol graph
# follows, and whose history moves a definition so the same blob means something else.
# Usage: graph.sh DIR
#
# The story: on `main`, `app.py` imports `run` from `billing.engine` (a module file) and calls
# it; `legacy/engine.py` defines another `run`, so only the import says which one is meant.
# Tests import and call it. Then the branch `package` turns `billing/engine.py` into a package
# (`billing/engine/__init__.py`) without touching `app.py`: the same `app.py` blob now resolves
# to another file. `ambiguous.py` imports everything from both engines and calls `run`, so that call is
# ambiguous.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write billing/__init__.py <<'PY'
PY
write billing/engine.py <<'PY'
from billing.rates import rate_for


def run(order):
    total = 0
    for line in order:
        total += price(line)
    return total * rate_for(order)


def price(line):
    return line["qty"] * line["unit"]
PY
write billing/rates.py <<'PY'
DEFAULT_RATE = 1


def rate_for(order):
    return DEFAULT_RATE
PY
write legacy/engine.py <<'PY'
def run(order):
    return len(order)
PY
write app.py <<'PY'
from billing.engine import run


class Checkout:
    def submit(self, order):
        return self.confirm(run(order))

    def confirm(self, total):
        return total


def main():
    print(Checkout().submit([]))
PY
write ambiguous.py <<'PY'
from billing.engine import *
from legacy.engine import *


def guess(order):
    return run(order)
PY
write tests/test_engine.py <<'PY'
from billing.engine import run


def test_run_sums_lines():
    assert run([{"qty": 2, "unit": 3}]) == 6
PY
commit "A billing engine, its rates, a legacy engine and a checkout"

git checkout -q -b package
git mv billing/engine.py billing/engine__tmp.py
mkdir -p billing/engine
git mv billing/engine__tmp.py billing/engine/__init__.py
commit "billing.engine becomes a package"
git checkout -q main
