-- Run inside a real headless Neovim by tests/editors/test_conflicts.py: with the cursor on the gotcha's symbol,
-- remember a text that contradicts it (:Forewarn remember), answer the prompt that follows through
-- vim.ui.select as a user does, then wait for both memories to show as contested warnings.
-- What Neovim saw is written as JSON for pytest.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
local forewarn = require("forewarn")
local result = { ok = false, prompts = {}, notified = {} }

local function wait_for(what, condition)
  if not vim.wait(config.timeout_ms, condition, 20) then
    error("timed out after " .. config.timeout_ms .. " ms waiting for " .. what, 0)
  end
end

local function contested(bufnr)
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.source == "forewarn" and diagnostic.message:find("contested", 1, true) then
      table.insert(found, { message = diagnostic.message, severity = diagnostic.severity, lnum = diagnostic.lnum })
    end
  end
  return found
end

local function check()
  vim.cmd("edit " .. vim.fn.fnameescape(config.root .. "/" .. config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the forewarn client to attach", function()
    return forewarn.client(bufnr) ~= nil
  end)
  wait_for("the gotcha's diagnostic", function()
    for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
      if diagnostic.message:find(config.expect, 1, true) then
        return true
      end
    end
    return false
  end)
  vim.api.nvim_win_set_cursor(0, { config.line, config.column - 1 })
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    table.insert(result.notified, message)
    return notify(message, level, opts)
  end
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for _, item in ipairs(items) do
      table.insert(labels, opts.format_item and opts.format_item(item) or tostring(item))
    end
    table.insert(result.prompts, { prompt = opts.prompt, kind = opts.kind, items = labels })
    if opts.kind == "forewarn.conflict" then
      for _, item in ipairs(items) do
        if item.resolution == config.resolution then
          return on_choice(item)
        end
      end
      return on_choice(nil)
    end
    on_choice(items[1]) -- the type picker: the first type (gotcha)
  end
  vim.cmd("Forewarn remember " .. config.text)
  wait_for("the answer to be sent", function()
    return vim.tbl_contains(result.notified, "Forewarn: " .. config.done)
  end)
  wait_for("both memories shown as contested", function()
    return #contested(bufnr) == 2
  end)
  vim.notify = notify
  result.contested = contested(bufnr)
  result.ok = true
end

local ok, err = pcall(check)
result.error = not ok and tostring(err) or nil
vim.fn.writefile({ vim.fn.json_encode(result) }, config.result)
vim.cmd("qa!")
