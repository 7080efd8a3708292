package org.example.library

import groovy.transform.CompileStatic  // @ref import groovy.transform.CompileStatic

/**
 * Kinds of media a library lends.
 */
enum MediaType { // @def enum org.example.library.MediaType
    BOOK, // @def enum_member org.example.library.MediaType.BOOK
    DVD, // @def enum_member org.example.library.MediaType.DVD
    MAGAZINE // @def enum_member org.example.library.MediaType.MAGAZINE
}

interface Lendable { // @def interface org.example.library.Lendable
    boolean isAvailable() // @decl method org.example.library.Lendable.isAvailable
}

record Loan(Item item, Date due) { // @def class org.example.library.Loan @def field org.example.library.Loan.item @def field org.example.library.Loan.due
    boolean overdue() { // @def method org.example.library.Loan.overdue
        due.before(new Date())
    }
}

trait Timestamped { // @def trait org.example.library.Timestamped
    Date createdAt = new Date() // @def property org.example.library.Timestamped.createdAt

    String age() { // @def method org.example.library.Timestamped.age
        "${(new Date().time - createdAt.time) / 1000}s"
    }
}

@CompileStatic
class Item implements Lendable, Timestamped { // @def class org.example.library.Item
    static final int MAX_LOAN_DAYS = 21 // @def constant org.example.library.Item.MAX_LOAN_DAYS

    String title // @def property org.example.library.Item.title
    MediaType type // @def property org.example.library.Item.type
    private boolean lent = false // @def field org.example.library.Item.lent

    Item(String title, MediaType type) { // @def constructor org.example.library.Item.Item
        this.title = title
        this.type = type
    }

    boolean isAvailable() { // @def method org.example.library.Item.isAvailable
        !lent
    }

    void lend() { // @def method org.example.library.Item.lend
        if (lent) {
            throw new IllegalStateException("${title} is already lent")  // @ref call IllegalStateException in org.example.library.Item.lend
        }
        lent = true
    }

    static Item book(String title) { // @def method org.example.library.Item.book
        new Item(title, MediaType.BOOK)
    }

    @Override
    String toString() { // @def method org.example.library.Item.toString
        "${type}: ${title}"
    }
}

class Library { // @def class org.example.library.Library
    private final List<Item> items = [] // @def field org.example.library.Library.items

    def add(Item item) { // @def method org.example.library.Library.add
        items << item
        this
    }

    List<Item> available() { // @def method org.example.library.Library.available
        items.findAll { it.isAvailable() }
    }
}
