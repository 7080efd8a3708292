package com.example.inventory;

import java.util.ArrayList; // @ref import java.util.ArrayList
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Keeps stock of items. */
public class Inventory implements Auditable { // @def class Inventory
    public static final int MAX_ITEMS = 1000; // @def field Inventory.MAX_ITEMS
    private final Map<String, Item> items = new HashMap<>(); // @def field Inventory.items
    private int reads, writes; // @def field Inventory.reads @def field Inventory.writes
    protected String[] tags; // @def field Inventory.tags

    static {
        System.loadLibrary("stock");
    }

    public Inventory() { // @def constructor Inventory.Inventory
        this(new ArrayList<>());
    }

    public Inventory(List<Item> initial) { // @def constructor Inventory.Inventory
        for (Item item : initial) {
            add(item); // @ref call add in Inventory.Inventory
        }
    }

    /** Adds an item, replacing one with the same SKU. */
    public void add(Item item) { // @def method Inventory.add
        int before = items.size();
        items.put(item.sku(), item); // @ref call put in Inventory.add @ref call sku in Inventory.add
        writes++;
    }

    public <T extends Item> List<T> findAll(Class<T> type) { // @def method Inventory.findAll
        List<T> found = new ArrayList<>();
        for (Item item : items.values()) {
            if (type.isInstance(item)) found.add(type.cast(item));
        }
        reads++;
        return found;
    }

    @Override
    public String audit() { // @def method Inventory.audit
        Runnable log = new Runnable() {
            @Override
            public void run() { // @def method Inventory.audit.run
                System.out.println("audited");
            }
        };
        log.run(); // @ref call run in Inventory.audit
        return "reads=" + reads + " writes=" + writes;
    }

    private static int[] counts(int n) { // @def method Inventory.counts
        return new int[n];
    }

    /** A stock-keeping unit. */
    public record Item(String sku, int quantity) implements Comparable<Item> { // @def class Inventory.Item @def field Inventory.Item.sku @def field Inventory.Item.quantity
        public Item { // @def constructor Inventory.Item.Item
            if (quantity < 0) throw new IllegalArgumentException("quantity");
        }

        @Override
        public int compareTo(Item other) { // @def method Inventory.Item.compareTo
            return sku.compareTo(other.sku);
        }
    }

    enum Category { // @def enum Inventory.Category
        TOOLS("t"), // @def enum_member Inventory.Category.TOOLS
        FOOD("f") { // @def enum_member Inventory.Category.FOOD
            @Override
            boolean perishable() { // @def method Inventory.Category.FOOD.perishable
                return true;
            }
        };

        private final String code; // @def field Inventory.Category.code

        Category(String code) { // @def constructor Inventory.Category.Category
            this.code = code;
        }

        boolean perishable() { // @def method Inventory.Category.perishable
            return false;
        }
    }

    static class Counter { // @def class Inventory.Counter
        private long value; // @def field Inventory.Counter.value

        long next() { // @def method Inventory.Counter.next
            return ++value;
        }
    }
}

interface Auditable { // @def interface Auditable
    String PREFIX = "audit:"; // @def constant Auditable.PREFIX

    String audit(); // @decl method Auditable.audit

    default String label() { // @def method Auditable.label
        return PREFIX + audit();
    }

    static Auditable none() { // @def method Auditable.none
        return () -> "";
    }
}

abstract class Shelf<T> { // @def class Shelf
    protected abstract T take(int slot); // @decl method Shelf.take

    public int capacity() { // @def method Shelf.capacity
        return 10;
    }
}

@interface Tracked { // @def interface Tracked
    String owner() default "ops"; // @decl method Tracked.owner
    int priority(); // @decl method Tracked.priority
}
