#!/usr/bin/env bash
# The `symbol-history` repository: one function's life, and a helper renamed.
# Usage: symbol-history.sh DIR
#
# The story, one commit each: `total` and `tax` are written in `shop/cart.py`; `total`'s body
# changes; the README changes (nothing of the code); `total` moves to `shop/pricing.py`
# unchanged; `tax` is renamed `vat` (the same body); `total` is deleted; `total` comes back in
# `shop/cart.py` with another body and a `Basket.total` method beside it; `shop/cart.py` is
# renamed `shop/basket.py`, and both move with it; `vat` is renamed `value_added_tax` and
# gains a docstring in the same commit (a rename with an edit); then the renames with edits at
# the end of the file.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write README.md <<'MD'
# shop
MD
write shop/cart.py <<'PY'
def total(items):
    return sum(items)


def tax(amount):
    return amount * 0.2
PY
commit "Add the cart: total and tax"

write shop/cart.py <<'PY'
def total(items):
    return sum(item for item in items if item > 0)


def tax(amount):
    return amount * 0.2
PY
commit "Ignore refunds in total"

write README.md <<'MD'
# shop

Totals and taxes.
MD
commit "Describe the shop"

write shop/cart.py <<'PY'
def tax(amount):
    return amount * 0.2
PY
write shop/pricing.py <<'PY'
def total(items):
    return sum(item for item in items if item > 0)
PY
commit "Move total to pricing"

write shop/cart.py <<'PY'
def vat(amount):
    return amount * 0.2
PY
commit "Call it vat"

rm shop/pricing.py
commit "Drop total"

write shop/cart.py <<'PY'
def vat(amount):
    return amount * 0.2


def total(items):
    return sum(items) + vat(sum(items))


class Basket:
    def total(self):
        return total(self.items)
PY
commit "Bring total back, with vat"

git mv shop/cart.py shop/basket.py
commit "Rename the cart module"

write shop/basket.py <<'PY'
def value_added_tax(amount):
    """The tax on an amount."""
    return amount * 0.2


def total(items):
    return sum(items) + value_added_tax(sum(items))


class Basket:
    def total(self):
        return total(self.items)
PY
commit "Spell out value_added_tax"

# Renames with edits that git's similarity estimate puts under its threshold, and a method
# whose class goes: `shipping` becomes `shipping_cost` (its name extended, an `express` branch
# added), `discount` becomes `bulk_rebate` (most lines kept), `Checks.positive` becomes the
# function `positive`.
write shop/extras.py <<'PY'
def shipping(weight):
    """Shipping costs by weight."""
    base = 5
    per_kilo = 2
    return base + per_kilo * weight


def discount(items):
    """A discount for large orders."""
    count = len(items)
    if count > 10:
        return 0.1
    return 0.0


class Checks:
    def positive(self, amount):
        return amount > 0
PY
commit "Add shipping, discount and checks"

write shop/extras.py <<'PY'
def shipping_cost(weight, express=False):
    """Shipping costs by weight."""
    base = 5
    per_kilo = 2
    if express:
        base = base * 3
        per_kilo = per_kilo * 2
        print("express shipping")
    return base + per_kilo * weight


def bulk_rebate(items, threshold=10):
    """A discount for large orders."""
    count = len(items)
    if count > threshold and all(item > 0 for item in items):
        return 0.1
    return 0.0


def positive(amount):
    return amount > 0
PY
commit "Rename with edits; checks are functions now"
