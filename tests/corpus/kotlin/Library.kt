// A small Kotlin file exercising the definitions the extractor knows.
package com.example.library

import java.time.LocalDate  // @ref import java.time.LocalDate

const val MAX_LOANS = 5 // @def constant MAX_LOANS
val defaultShelf = Shelf("A1") // @def variable defaultShelf
var openLibraries = 0 // @def variable openLibraries

typealias BookIndex = Map<String, Book> // @def type BookIndex

/** Something that can be borrowed. */
interface Borrowable { // @def interface Borrowable
    val dueDays: Int // @def property Borrowable.dueDays
    fun borrow(member: Member): Loan // @decl method Borrowable.borrow
    fun renew(loan: Loan): Loan = loan.copy(due = loan.due.plusDays(dueDays.toLong())) // @def method Borrowable.renew
}

data class Book(val isbn: String, val title: String, private var copies: Int = 1) : Borrowable { // @def class Book @def property Book.isbn @def property Book.title @def property Book.copies
    override val dueDays = 14 // @def property Book.dueDays
    var lastBorrowed: LocalDate? = null // @def property Book.lastBorrowed
        private set

    constructor(isbn: String) : this(isbn, "untitled") // @def constructor Book.constructor

    init {
        require(copies >= 0)  // @ref call require in Book
    }

    override fun borrow(member: Member): Loan { // @def method Book.borrow
        copies -= 1
        val today = LocalDate.now()
        lastBorrowed = today
        return Loan(this, member, today.plusDays(dueDays.toLong()))
    }

    companion object { // companion members are qualified by the class
        const val UNKNOWN = "?" // @def constant Book.UNKNOWN
        fun parse(line: String): Book = Book(line.substringBefore(','), line.substringAfter(',')) // @def method Book.parse
    }
}

data class Loan(val book: Book, val member: Member, val due: LocalDate) // @def class Loan @def property Loan.book @def property Loan.member @def property Loan.due

class Member(name: String) { // @def class Member
    val name: String = name.trim() // @def property Member.name
    private val loans = mutableListOf<Loan>() // @def property Member.loans

    fun canBorrow(): Boolean = loans.size < MAX_LOANS // @def method Member.canBorrow

    inner class Card(val number: Int) { // @def class Member.Card @def property Member.Card.number
        fun owner() = name // @def method Member.Card.owner
    }

    companion object Registry { // @def class Member.Registry
        private val all = mutableListOf<Member>() // @def property Member.Registry.all
        fun register(member: Member) { all += member } // @def method Member.Registry.register
    }
}

enum class Genre(val label: String) { // @def enum Genre @def property Genre.label
    FICTION("Fiction"), // @def enum_member Genre.FICTION
    SCIENCE("Science") { // @def enum_member Genre.SCIENCE
        override fun shelfPrefix() = "S" // @def method Genre.SCIENCE.shelfPrefix
    };

    open fun shelfPrefix(): String = label.take(1) // @def method Genre.shelfPrefix
}

sealed class Event { // @def class Event
    abstract val at: LocalDate // @def property Event.at
    abstract fun describe(): String // @decl method Event.describe
    data class Returned(val loan: Loan, override val at: LocalDate) : Event() { // @def class Event.Returned @def property Event.Returned.loan @def property Event.Returned.at
        override fun describe() = "returned ${loan.book.title}" // @def method Event.Returned.describe
    }
}

object Catalog { // @def class Catalog
    const val VERSION = 2 // @def constant Catalog.VERSION
    private val index: BookIndex = emptyMap() // @def property Catalog.index
    fun find(isbn: String): Book? = index[isbn] // @def method Catalog.find
}

class Shelf(val code: String) // @def class Shelf @def property Shelf.code

fun String.toIsbn(): String = filter { it.isDigit() } // @def function String.toIsbn

fun <T> List<T>.secondOrNull(): T? = getOrNull(1) // @def function List.secondOrNull

fun main() { // @def function main
    val member = Member(" Ada ")
    fun greet() = println("hello ${member.name}") // @def function main.greet
    greet()
    openLibraries += 1
}
