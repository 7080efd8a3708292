#!/usr/bin/env bash
# The `many-repos` directory: the repositories of a small shop, to be asked across at once.
# Usage: many-repos.sh DIR
#
# The story: `billing` charges cards and formats amounts; its branch `v2` moves the charge
# into a module of its own. `billing-fork` is a clone of it with one change of its own, so
# nearly all of its blobs are billing's. `storefront` renders invoices and calls the billing
# service by name only in a comment. Every repository defines a name no other one has, so an
# answer that mixes them up shows.

. "$(dirname "$0")/lib.sh"
root="$1"
mkdir -p "$root"

new_repo "$root/billing"
write billing/charge.py <<'PY'
from billing.money import format_amount


def charge_card(card, cents):
    """Charges a card and returns the receipt line."""
    return "charged " + format_amount(cents) + " to " + card


def refund_only_in_billing(card, cents):
    return charge_card(card, -cents)
PY
write billing/money.py <<'PY'
def format_amount(cents):
    return "%d.%02d" % (cents // 100, cents % 100)
PY
commit "billing: charge cards"
git checkout -q -b v2
mkdir -p billing/cards
git mv billing/charge.py billing/cards/charge_v2.py
commit "billing v2: the charge in a module of its own"
git checkout -q main

cd "$root"
git clone -q "$root/billing" "$root/billing-fork"
cd "$root/billing-fork"
git config core.autocrlf false
git config commit.gpgsign false
write billing/fork_extra.py <<'PY'
from billing.charge import charge_card


def charge_twice_only_in_fork(card, cents):
    charge_card(card, cents)
    return charge_card(card, cents)
PY
commit "fork: charge twice"

new_repo "$root/storefront"
write storefront/invoice.py <<'PY'
def render_invoice_only_in_storefront(lines):
    # The billing service's charge_card is called over HTTP, never imported here.
    return "\n".join(lines)
PY
commit "storefront: invoices"
