-- Run inside a real headless Neovim by tests/editors/test_nvim.py: open a file whose history was mined,
-- wait for the suggestion's hint, run :Forewarn review and accept it through vim.ui.select, as a user does;
-- then wait for the diagnostic to stop being a hint. What Neovim saw is written as JSON for pytest.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
local forewarn = require("forewarn")
local result = { ok = false }

local function wait_for(what, condition)
  if not vim.wait(config.timeout_ms, condition, 20) then
    error("timed out after " .. config.timeout_ms .. " ms waiting for " .. what, 0)
  end
end

local function ours(bufnr, marker)
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.source == "forewarn" and diagnostic.message:find(marker, 1, true) then
      return diagnostic
    end
  end
end

local function check()
  vim.cmd("edit " .. vim.fn.fnameescape(config.root .. "/" .. config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the forewarn client to attach", function()
    return forewarn.client(bufnr) ~= nil
  end)
  wait_for("the suggestion's hint", function()
    return ours(bufnr, config.expect) ~= nil
  end)
  local hint = ours(bufnr, config.expect)
  result.hint = { message = hint.message, severity = hint.severity }
  result.prompts = {}
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    result.notified = message
    return notify(message, level, opts)
  end
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for _, item in ipairs(items) do
      table.insert(labels, opts.format_item and opts.format_item(item) or tostring(item))
    end
    table.insert(result.prompts, { prompt = opts.prompt, kind = opts.kind, items = labels })
    on_choice(opts.kind == "forewarn.suggestion" and items[1] or "Accept")
  end
  vim.cmd("Forewarn review")
  wait_for("the suggestion to be accepted", function()
    local diagnostic = ours(bufnr, config.expect)
    return result.notified ~= nil and diagnostic ~= nil and diagnostic.severity ~= vim.diagnostic.severity.HINT
  end)
  vim.notify = notify
  local accepted = ours(bufnr, config.expect)
  result.accepted = { message = accepted.message, severity = accepted.severity }
  result.ok = true
end

local ok, err = pcall(check)
result.error = not ok and tostring(err) or nil
vim.fn.writefile({ vim.fn.json_encode(result) }, config.result)
vim.cmd("qa!")
