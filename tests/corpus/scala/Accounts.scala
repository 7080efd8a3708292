// A small Scala 3 file exercising the definitions the extractor knows.
package com.example.accounts

import scala.collection.mutable  // @ref import scala.collection.mutable

type AccountId = String // @def type AccountId

val DefaultCurrency = "EUR" // @def variable DefaultCurrency
var openAccounts = 0 // @def variable openAccounts

def formatAmount(cents: Long): String = f"${cents / 100.0}%.2f" // @def function formatAmount

/** Something that has a balance. */
trait Balance { // @def trait Balance
  def balance: Long // @decl method Balance.balance
  val currency: String // @def property Balance.currency
  def isOverdrawn: Boolean = balance < 0 // @def method Balance.isOverdrawn
}

case class Transaction(id: String, amount: Long, memo: String = "") // @def class Transaction @def property Transaction.id @def property Transaction.amount @def property Transaction.memo

class Account(val id: AccountId, owner: String) extends Balance { // @def class Account @def property Account.id
  private val history = mutable.ListBuffer.empty[Transaction] // @def property Account.history
  var frozen: Boolean = false // @def property Account.frozen
  override val currency: String = DefaultCurrency // @def property Account.currency

  def this(id: AccountId) = this(id, "unknown") // @def constructor Account.this

  def balance: Long = history.map(_.amount).sum // @def method Account.balance

  def deposit(amount: Long): Unit = { // @def method Account.deposit
    def validate(a: Long): Boolean = a > 0 // @def function Account.deposit.validate
    require(validate(amount))  // @ref call require in Account.deposit @ref call validate in Account.deposit
    val tx = Transaction(java.util.UUID.randomUUID().toString, amount)
    history += tx
  }

  type Listener = Transaction => Unit // @def type Account.Listener

  class Statement(val lines: Seq[String]) { // @def class Account.Statement @def property Account.Statement.lines
    def render(): String = lines.mkString("\n") // @def method Account.Statement.render
  }
}

object Account { // @def class Account
  val MaxAccounts = 1000 // @def property Account.MaxAccounts
  def apply(id: AccountId): Account = new Account(id) // @def method Account.apply
}

enum Currency(val symbol: String) { // @def enum Currency @def property Currency.symbol
  case Euro extends Currency("€") // @def enum_member Currency.Euro
  case Dollar extends Currency("$") // @def enum_member Currency.Dollar

  def show: String = symbol // @def method Currency.show
}

enum Color { // @def enum Color
  case Red, Green // @def enum_member Color.Red @def enum_member Color.Green
}

sealed trait Event // @def trait Event

abstract class Ledger { // @def class Ledger
  def record(tx: Transaction): Unit // @decl method Ledger.record
}

extension (a: Account) {
  def describe: String = s"account ${a.id}" // @def method Account.describe
}

package reports { // @def module reports
  object Monthly { // @def class reports.Monthly
    def run(): Unit = println(formatAmount(0)) // @def method reports.Monthly.run
  }
}
