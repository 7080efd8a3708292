// A small C# file exercising the definitions the extractor knows.
using System;  // @ref import System
using System.Collections.Generic;
using System.Linq;

namespace Shop.Orders // @def module Shop.Orders
{
    public delegate void OrderChanged(Order order); // @def type Shop.Orders.OrderChanged

    public enum OrderStatus // @def enum Shop.Orders.OrderStatus
    {
        Pending, // @def enum_member Shop.Orders.OrderStatus.Pending
        Shipped = 2, // @def enum_member Shop.Orders.OrderStatus.Shipped
    }

    /// <summary>Something with a total.</summary>
    public interface IPriced // @def interface Shop.Orders.IPriced
    {
        decimal Total { get; } // @def property Shop.Orders.IPriced.Total
        decimal Discount(decimal rate); // @decl method Shop.Orders.IPriced.Discount
        string Describe() => $"total {Total}"; // @def method Shop.Orders.IPriced.Describe
    }

    public readonly struct Money // @def struct Shop.Orders.Money
    {
        public readonly decimal Amount; // @def field Shop.Orders.Money.Amount
        public Money(decimal amount) { Amount = amount; } // @def constructor Shop.Orders.Money.Money
        public static Money operator +(Money a, Money b) => new Money(a.Amount + b.Amount); // @def method Shop.Orders.Money.+
    }

    public record LineItem(string Sku, int Quantity, decimal Price); // @def class Shop.Orders.LineItem @def property Shop.Orders.LineItem.Sku @def property Shop.Orders.LineItem.Quantity @def property Shop.Orders.LineItem.Price

    public record struct Coupon(string Code); // @def struct Shop.Orders.Coupon @def property Shop.Orders.Coupon.Code

    /// <summary>An order of line items.</summary>
    public class Order : IPriced // @def class Shop.Orders.Order
    {
        public const int MaxItems = 50; // @def constant Shop.Orders.Order.MaxItems
        private readonly List<LineItem> _items = new(); // @def field Shop.Orders.Order._items
        private int _version, _revision; // @def field Shop.Orders.Order._version @def field Shop.Orders.Order._revision
        public event OrderChanged Changed; // @def field Shop.Orders.Order.Changed

        public Guid Id { get; } = Guid.NewGuid(); // @def property Shop.Orders.Order.Id
        public OrderStatus Status { get; private set; } // @def property Shop.Orders.Order.Status
        public decimal Total => _items.Sum(i => i.Price * i.Quantity); // @def property Shop.Orders.Order.Total

        public Order() { } // @def constructor Shop.Orders.Order.Order
        public Order(IEnumerable<LineItem> items) : this() // @def constructor Shop.Orders.Order.Order
        {
            _items.AddRange(items);  // @ref call AddRange in Shop.Orders.Order.Order
        }

        public void Add(LineItem item) // @def method Shop.Orders.Order.Add
        {
            if (_items.Count >= MaxItems) throw new InvalidOperationException("full");
            _items.Add(item);
            _version++;
            Notify();

            void Notify() => Changed?.Invoke(this); // @def function Shop.Orders.Order.Add.Notify
        }

        public decimal Discount(decimal rate) => Total * (1 - rate); // @def method Shop.Orders.Order.Discount

        public static Order Empty() => new Order(); // @def method Shop.Orders.Order.Empty

        public T Find<T>(Func<LineItem, bool> match) where T : class => null; // @def method Shop.Orders.Order.Find

        private class Audit // @def class Shop.Orders.Order.Audit
        {
            internal string Who { get; set; } = "system"; // @def property Shop.Orders.Order.Audit.Who
        }
    }

    public abstract class Repository<T> where T : IPriced // @def class Shop.Orders.Repository
    {
        protected abstract T Load(Guid id); // @decl method Shop.Orders.Repository.Load
        public virtual void Save(T item) { } // @def method Shop.Orders.Repository.Save
    }

    public static partial class Extensions // @def class Shop.Orders.Extensions
    {
        public static bool IsLarge(this Order order) => order.Total > 1000m; // @def method Shop.Orders.Extensions.IsLarge
        static partial void Log(string message); // @decl method Shop.Orders.Extensions.Log
    }
}

namespace Shop.Billing // @def module Shop.Billing
{
    internal sealed class Invoice // @def class Shop.Billing.Invoice
    {
        public string Number { get; init; } // @def property Shop.Billing.Invoice.Number
    }
}
