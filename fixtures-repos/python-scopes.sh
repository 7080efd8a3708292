#!/usr/bin/env bash
# The `python-scopes` repository: the Python scoping rules the symbol graph follows.
# Usage: python-scopes.sh DIR
#
# The story: a package `shop` defines `Cart` in `shop/cart.py` and re-exports it from
# `shop/__init__.py`, so `from shop import Cart` means `shop/cart.py`'s class. `shop/codec.py`
# defines a module function `dumps` and a class `Codec` with a method `dumps`: `shop.codec.dumps`
# after `import shop.codec`, and `_codec.dumps` after `import shop.codec as _codec`, mean the
# function; `codec.dumps` on a value means the method. Two tests each define a local helper
# `check`; neither is the other's. `cart.get()` on a value of unknown type may be a `dict`'s, so
# it is not claimed, while `cart.checkout()` names the only method so named. `orphan.py` uses
# `Cart` without importing it: in Python that is no reference at all.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write shop/__init__.py <<'PY'
from .cart import Cart as Cart
PY
write shop/cart.py <<'PY'
class Cart:
    def get(self, sku):
        return sku

    def checkout(self):
        return True
PY
write shop/codec.py <<'PY'
def dumps(value):
    return str(value)


class Codec:
    def dumps(self, value):
        return repr(value)
PY
write app.py <<'PY'
import shop.codec
import shop.codec as _codec
from shop import Cart


def main(codec, cart):
    first = shop.codec.dumps(1)
    second = _codec.dumps(2)
    third = codec.dumps(3)
    cart.get("a")
    cart.checkout()
    return Cart(), first, second, third
PY
write orphan.py <<'PY'
def lost():
    return Cart()
PY
write tests/test_one.py <<'PY'
def test_one():
    def check(x):
        return x

    assert check(1)
PY
write tests/test_two.py <<'PY'
def test_two():
    def check(x):
        return not x

    assert check(0)
PY
commit "A shop package, an app using it, and two tests with local helpers"
