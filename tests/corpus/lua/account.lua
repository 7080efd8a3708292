-- A bank account module in the classic table-as-class style.

local json = require("json")  -- @ref call require @ref import json

local MAX_BALANCE = 1e9 -- @def constant MAX_BALANCE
local currency <const> = "EUR" -- @def constant currency
local accounts_opened = 0 -- @def variable accounts_opened

DEBUG = false -- @def constant DEBUG

local Account = {} -- @def variable Account
Account.__index = Account

--- Opens a new account with an initial balance.
function Account.new(owner, balance) -- @def function Account.new
  accounts_opened = accounts_opened + 1
  return setmetatable({ owner = owner, balance = balance or 0 }, Account)
end

function Account:deposit(amount) -- @def method Account.deposit
  local function check(v) -- @def function Account.deposit.check
    assert(v > 0, "amount must be positive")
  end
  check(amount)  -- @ref call check in Account.deposit
  self.balance = math.min(self.balance + amount, MAX_BALANCE)
end

function Account:withdraw(amount) -- @def method Account.withdraw
  if amount > self.balance then
    error("insufficient funds")
  end
  self.balance = self.balance - amount
end

Account.to_json = function(self) -- @def function Account.to_json
  return json.encode({ owner = self.owner, balance = self.balance, currency = currency })
end

local function format_amount(amount) -- @def function format_amount
  return string.format("%.2f %s", amount, currency)
end

local describe = function(account) -- @def function describe
  return account.owner .. ": " .. format_amount(account.balance)
end

function log(message) -- @def function log
  if DEBUG then
    print("[account] " .. message)
  end
end

local M = { -- @def variable M
  Account = Account,
  describe = describe,
  version = "1.2.0",
  opened = function() -- @def function M.opened
    return accounts_opened
  end,
}

M.util = {}

function M.util.round(x) -- @def function M.util.round
  return math.floor(x + 0.5)
end

return M
