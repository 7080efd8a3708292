# frozen_string_literal: true

require "json"  # @ref call require @ref import json

VERSION = "2.4.1" # @def constant VERSION

# Helpers shared by the whole inventory.
def log_event(message) # @def function log_event
  warn "[inventory] #{message}" # @ref call warn in log_event
end

module Inventory # @def module Inventory
  DEFAULT_WAREHOUSE = "main" # @def constant Inventory::DEFAULT_WAREHOUSE

  # An item on a shelf.
  Item = Struct.new(:sku, :quantity) do # @def class Inventory::Item
    def empty? # @def method Inventory::Item::empty?
      quantity.zero?
    end
  end

  class Error < StandardError; end # @def class Inventory::Error

  module Serializable # @def module Inventory::Serializable
    def to_json(*args) # @def method Inventory::Serializable::to_json
      to_h.to_json(*args)
    end
  end

  class Stock # @def class Inventory::Stock
    include Serializable

    MAX_ITEMS = 10_000 # @def constant Inventory::Stock::MAX_ITEMS

    attr_reader :items

    def self.load(path) # @def method Inventory::Stock::load
      new(JSON.parse(File.read(path)))
    end

    class << self
      def empty # @def method Inventory::Stock::empty
        new({})
      end
    end

    def initialize(items) # @def method Inventory::Stock::initialize
      @items = items
    end

    def add(sku, count = 1) # @def method Inventory::Stock::add
      raise Error, "too many items" if size + count > MAX_ITEMS

      @items[sku] = @items.fetch(sku, 0) + count
      log_event("added #{count} of #{sku}")
    end

    def [](sku) # @def method Inventory::Stock::[]
      @items.fetch(sku, 0)
    end

    def warehouse=(name) # @def method Inventory::Stock::warehouse=
      @warehouse = name
    end

    def ==(other) # @def method Inventory::Stock::==
      other.is_a?(Stock) && other.items == items
    end

    def size # @def method Inventory::Stock::size
      @items.values.sum
    end
    alias count size # @def method Inventory::Stock::count

    def to_h # @def method Inventory::Stock::to_h
      { items: @items, warehouse: @warehouse || DEFAULT_WAREHOUSE }
    end

    private

    def reset! # @def method Inventory::Stock::reset!
      @items.clear
    end
  end
end

class Inventory::Report # @def class Inventory::Report
  def initialize(stock) # @def method Inventory::Report::initialize
    @stock = stock
  end

  def render # @def method Inventory::Report::render
    total = @stock.size
    "#{total} items"
  end
end
