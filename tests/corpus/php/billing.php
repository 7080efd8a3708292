<?php

declare(strict_types=1);

namespace App\Billing; // @def module App\Billing

use DateTimeImmutable;  // @ref import DateTimeImmutable
use InvalidArgumentException;

const DEFAULT_CURRENCY = 'EUR'; // @def constant App\Billing\DEFAULT_CURRENCY

/**
 * Formats an amount of cents for display.
 */
function format_money(int $cents, string $currency = DEFAULT_CURRENCY): string // @def function App\Billing\format_money
{
    return sprintf('%.2f %s', $cents / 100, $currency);  // @ref call sprintf in App\Billing\format_money
}

interface Payable // @def interface App\Billing\Payable
{
    const PRECISION = 2; // @def constant App\Billing\Payable\PRECISION

    public function total(): int; // @decl method App\Billing\Payable\total
}

trait HasTimestamps // @def trait App\Billing\HasTimestamps
{
    protected ?DateTimeImmutable $createdAt = null; // @def property App\Billing\HasTimestamps\createdAt

    public function touch(): void // @def method App\Billing\HasTimestamps\touch
    {
        $this->createdAt = new DateTimeImmutable();
    }
}

enum Status: string // @def enum App\Billing\Status
{
    case Draft = 'draft'; // @def enum_member App\Billing\Status\Draft
    case Paid = 'paid'; // @def enum_member App\Billing\Status\Paid

    public function label(): string // @def method App\Billing\Status\label
    {
        return ucfirst($this->value);
    }
}

abstract class Document // @def class App\Billing\Document
{
    abstract public function number(): string; // @decl method App\Billing\Document\number
}

final class Invoice extends Document implements Payable // @def class App\Billing\Invoice
{
    use HasTimestamps;

    public const MAX_LINES = 100; // @def constant App\Billing\Invoice\MAX_LINES

    private static int $counter = 0; // @def property App\Billing\Invoice\counter

    /** @var array<int, int> */
    private array $lines = [], // @def property App\Billing\Invoice\lines
        $discounts = []; // @def property App\Billing\Invoice\discounts

    public function __construct( // @def constructor App\Billing\Invoice\__construct
        private readonly string $customer,
        public Status $status = Status::Draft,
    ) {
        self::$counter++;
    }

    public static function forCustomer(string $customer): self // @def method App\Billing\Invoice\forCustomer
    {
        if ($customer === '') {
            throw new InvalidArgumentException('customer required');
        }
        return new self($customer);
    }

    public function addLine(int $cents): void // @def method App\Billing\Invoice\addLine
    {
        $this->lines[] = $cents;
        $this->touch();
    }

    public function total(): int // @def method App\Billing\Invoice\total
    {
        $sum = fn (int $carry, int $cents): int => $carry + $cents;
        return array_reduce($this->lines, $sum, 0);
    }

    public function number(): string // @def method App\Billing\Invoice\number
    {
        return sprintf('INV-%05d', self::$counter);
    }

    public function __toString(): string // @def method App\Billing\Invoice\__toString
    {
        return format_money($this->total());
    }
}
