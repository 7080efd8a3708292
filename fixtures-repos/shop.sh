#!/usr/bin/env bash
# The `shop` repository: a small multi-language project with a history that exercises every
# way a view changes. Usage: shop.sh DIR
#
# The story:
#  1. main starts with a Rust library, a Python client, a C helper and docs.
#  2. Tag v1.0 marks that state; `old-line` branches off here and later edits the C helper,
#     so it is not a descendant of what main becomes.
#  3. main adds an inventory module (commit "inventory").
#  4. `feature` changes exactly one file (cart.rs gains `apply_coupon`).
#  5. `rename` moves the Python client to a new path without changing it.
#  6. `same-tree` is an empty commit on top of "inventory": another commit, the same tree.
#  7. `revert` changes cart.rs and then reverts that change.
#  8. `delete` removes the inventory module.
#  9. main gets a .gitignore for build output.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write src/cart.rs <<'RS'
//! Shopping carts.

/// One line of a cart.
pub struct Item {
    pub sku: String,
    pub quantity: u32,
    pub cents: u64,
}

/// A cart of items.
pub struct Cart {
    items: Vec<Item>,
}

impl Cart {
    /// An empty cart.
    pub fn new() -> Cart {
        Cart { items: Vec::new() }
    }

    /// Adds an item.
    pub fn add(&mut self, item: Item) {
        self.items.push(item);
    }

    /// The total in cents.
    pub fn total_cents(&self) -> u64 {
        self.items.iter().map(|i| i.cents * u64::from(i.quantity)).sum()
    }
}
RS
write clients/python/shop_client.py <<'PY'
"""A client for the shop API."""

DEFAULT_TIMEOUT = 30


class ShopClient:
    """Talks to the shop over HTTP."""

    def __init__(self, base_url):
        self.base_url = base_url

    def fetch_cart(self, cart_id):
        """Fetches one cart."""
        return {"id": cart_id}


def connect(url):
    return ShopClient(url)
PY
write native/checksum.c <<'C'
#include <stddef.h>

/* Adler-style checksum of a buffer. */
unsigned long shop_checksum(const unsigned char *data, size_t len)
{
    unsigned long a = 1, b = 0;
    for (size_t i = 0; i < len; i++) {
        a = (a + data[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}
C
write docs/guide.md <<'MD'
# Shop guide

## Carts

Carts hold items.
MD
commit "initial shop"
git tag v1.0

git checkout -q -b old-line
write native/checksum.c <<'C'
#include <stddef.h>

/* Legacy checksum, kept for old clients. */
unsigned long shop_checksum_legacy(const unsigned char *data, size_t len)
{
    unsigned long sum = 0;
    for (size_t i = 0; i < len; i++)
        sum += data[i];
    return sum;
}
C
commit "legacy checksum on the old line"
git checkout -q main

write src/inventory.rs <<'RS'
//! Stock levels.

/// How many of each SKU are in stock.
pub struct Inventory {
    levels: std::collections::HashMap<String, u32>,
}

impl Inventory {
    /// Reserves stock for a cart; false when there is not enough.
    pub fn reserve(&mut self, sku: &str, quantity: u32) -> bool {
        match self.levels.get_mut(sku) {
            Some(level) if *level >= quantity => {
                *level -= quantity;
                true
            }
            _ => false,
        }
    }
}
RS
commit "inventory"

git checkout -q -b feature
cat >>src/cart.rs <<'RS'

/// Applies a percentage coupon to a total.
pub fn apply_coupon(total_cents: u64, percent: u64) -> u64 {
    total_cents - total_cents * percent / 100
}
RS
commit "coupons"
git checkout -q main

git checkout -q -b rename
mkdir -p clients/py
git mv clients/python/shop_client.py clients/py/shop_client.py
commit "move the python client"
git checkout -q main

git checkout -q -b same-tree
commit "an empty commit: same tree as main"
git checkout -q main

git checkout -q -b revert
sed -i 's/An empty cart./A new, empty cart./' src/cart.rs
commit "reword"
git revert --no-edit HEAD >/dev/null
git checkout -q main

git checkout -q -b delete
git rm -q src/inventory.rs
commit "drop inventory"
git checkout -q main

write .gitignore <<'IGN'
/build/
*.log
IGN
commit "ignore build output"
