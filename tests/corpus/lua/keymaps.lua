-- Editor key bindings, returned as a plain table of functions.

local defaults = { leader = " ", timeout = 500 } -- @def variable defaults
local registered -- @def variable registered

local function bind(mode, lhs, rhs) -- @def function bind
  registered = registered or {}
  table.insert(registered, { mode = mode, lhs = lhs, rhs = rhs })
end

return {
  setup = function(opts) -- @def function setup
    opts = vim.tbl_extend("force", defaults, opts or {})
    bind("n", opts.leader .. "w", function()
      vim.cmd("write")
    end)
  end,

  list = function() -- @def function list
    return registered or {}
  end,

  version = "0.3.0",
}
