-- Sourced after minimal_init.lua in a tmux pane by tests/editors/test_nvim_panel.py: open the file, :Forewarn panel,
-- wait until its three sections are in, then signal the test through `tmux wait-for` so it captures the screen.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
vim.o.termguicolors = true
vim.o.number = true
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. "F"
vim.diagnostic.config({ virtual_text = false, signs = true, underline = false })

local function done()
  vim.fn.system({ "tmux", "-L", config.tmux_socket, "wait-for", "-S", config.channel })
end

local function ready()
  local state = require("forewarn.panel").state()
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    return false
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(state.buf, 0, -1, false), "\n")
  return text:find("This file: " .. config.file, 1, true) ~= nil and text:find("current by source", 1, true) ~= nil
    and text:find("Review: 3", 1, true) ~= nil
end

vim.schedule(function()
  vim.cmd("cd " .. vim.fn.fnameescape(config.root))
  vim.cmd("edit " .. vim.fn.fnameescape(config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(config.timeout_ms, function()
    return require("forewarn").client(bufnr) ~= nil
  end, 20)
  vim.cmd("Forewarn panel")
  vim.wait(config.timeout_ms, ready, 20) -- on a timeout the screen shows how far it got; the test asserts on it
  vim.cmd("redraw")
  done()
end)
