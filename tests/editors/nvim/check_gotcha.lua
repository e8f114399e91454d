-- Run inside a real headless Neovim by tests/editors/test_nvim.py:
--   open the fixture file, wait for the gotcha diagnostic, hover the symbol, run :Forewarn search.
-- What Neovim saw is written as JSON for pytest to assert on. Waits are vim.wait on a condition.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
local forewarn = require("forewarn")
local result = { steps = {} }

local function now_ms()
  return vim.loop.hrtime() / 1e6
end

local function step(name, action)
  local started = now_ms()
  local ok, err = pcall(action)
  table.insert(result.steps, { name = name, ms = math.floor(now_ms() - started) })
  if not ok then
    error(name .. ": " .. tostring(err), 0)
  end
end

local function wait_for(what, condition)
  if not vim.wait(config.timeout_ms, condition, 20) then
    error("timed out after " .. config.timeout_ms .. " ms waiting for " .. what, 0)
  end
end

local function markdown_text(contents)
  if type(contents) == "string" then
    return contents
  end
  if contents.value then
    return contents.value
  end
  local parts = {}
  for _, part in ipairs(contents) do
    table.insert(parts, markdown_text(part))
  end
  return table.concat(parts, "\n")
end

--- Waits for a scratch buffer named `name` (the plugin's :Forewarn map/stats output) and returns its text.
local function wait_for_scratch(name)
  local text
  wait_for("the " .. name .. " buffer", function()
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(bufnr):find(name, 1, true) then
        text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
        return text ~= ""
      end
    end
    return false
  end)
  return text
end

--- Runs the code action at the cursor whose title contains `title`, as a user does: vim.lsp.buf.code_action
--- asks the server (textDocument/codeAction) and offers its actions through vim.ui.select. The prompts the
--- action then opens are answered from `answers` ({type = ..., text = ...}; nil text = cancel);
--- `done(seen)` says when it is over.
local function run_code_action(title, answers, done)
  local seen = { titles = {}, prompts = {} }
  local failure
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    if level == vim.log.levels.ERROR or level == vim.log.levels.WARN then
      failure = message
    end
    return notify(message, level, opts)
  end
  vim.ui.select = function(items, opts, on_choice)
    if opts.kind == "codeaction" then
      local chosen
      for _, item in ipairs(items) do
        local label = opts.format_item(item)
        table.insert(seen.titles, label)
        chosen = chosen or (label:find(title, 1, true) and item or nil)
      end
      on_choice(chosen)
      return
    end
    table.insert(seen.prompts, { prompt = opts.prompt, items = items })
    on_choice(answers.type or items[1])
  end
  vim.ui.input = function(opts, on_confirm)
    table.insert(seen.prompts, { prompt = opts.prompt })
    on_confirm(answers.text)
  end
  vim.lsp.buf.code_action()
  wait_for("the code action '" .. title .. "' to finish", function()
    return failure ~= nil or done(seen)
  end)
  vim.notify = notify
  if failure then
    error(failure, 0)
  end
  return seen
end

--- The forewarn diagnostics on the buffer's line `lnum` (0-based), newest client's only.
local function memory_diagnostics(bufnr, lnum)
  local namespace = vim.lsp.diagnostic.get_namespace(forewarn.client(bufnr).id)
  return vim.diagnostic.get(bufnr, { namespace = namespace, lnum = lnum })
end

local function diagnostic_code(diagnostic)
  return diagnostic.code or (diagnostic.user_data and diagnostic.user_data.lsp and diagnostic.user_data.lsp.code)
end

local function check()
  local bufnr
  step("open the file", function()
    vim.cmd("edit " .. vim.fn.fnameescape(config.root .. "/" .. config.file))
    bufnr = vim.api.nvim_get_current_buf()
  end)
  step("client attached", function()
    wait_for("the forewarn client to attach", function()
      return forewarn.client(bufnr) ~= nil
    end)
    result.root_dir = forewarn.client(bufnr).config.root_dir
  end)
  step("gotcha diagnostic", function()
    wait_for("a forewarn diagnostic containing '" .. config.expect .. "'", function()
      for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
        if diagnostic.source == "forewarn" and diagnostic.message:find(config.expect, 1, true) then
          result.diagnostic = {
            message = diagnostic.message,
            lnum = diagnostic.lnum,
            severity = diagnostic.severity,
            code = diagnostic.code or (diagnostic.user_data and diagnostic.user_data.lsp and diagnostic.user_data.lsp.code),
          }
          return true
        end
      end
      return false
    end)
  end)
  step("hover", function()
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      -- the fixture line is ASCII, so the byte column is the UTF-16 one
      position = { line = config.line - 1, character = config.column - 1 },
    }
    -- while the server's first index run holds its lock, a hover may answer null: ask until one has contents
    wait_for("a hover with contents", function()
      local texts = {}
      for _, response in pairs(vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, config.timeout_ms) or {}) do
        if response.result and response.result.contents then
          table.insert(texts, markdown_text(response.result.contents))
        end
      end
      result.hover = table.concat(texts, "\n")
      return result.hover ~= ""
    end)
  end)
  step(":Forewarn search", function()
    local picked, failure
    -- the plugin reports a failed request through vim.notify: fail at once instead of at the deadline
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      if level == vim.log.levels.ERROR or level == vim.log.levels.WARN then
        failure = message
      end
      return notify(message, level, opts)
    end
    -- vim.ui.select is Neovim's documented hook for pickers (telescope and fzf-lua replace it too)
    vim.ui.select = function(items, opts, on_choice)
      picked = { prompt = opts.prompt, items = {} }
      for _, item in ipairs(items) do
        table.insert(picked.items, opts.format_item and opts.format_item(item) or tostring(item))
      end
      on_choice(items[1])
    end
    vim.cmd("Forewarn search " .. config.query)
    wait_for("search results in vim.ui.select", function()
      return picked ~= nil or failure ~= nil
    end)
    vim.notify = notify
    if not picked then
      error(failure, 0)
    end
    result.search = picked
    result.jumped_to = {
      file = vim.api.nvim_buf_get_name(0),
      line = vim.api.nvim_win_get_cursor(0)[1],
    }
  end)
  step(":Forewarn remember", function()
    local notified
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      notified = { message = message, level = level }
      return notify(message, level, opts)
    end
    vim.ui.select = function(items, _, on_choice)
      on_choice(vim.tbl_contains(items, "decision") and "decision" or nil)
    end
    vim.ui.input = function(_, on_confirm)
      on_confirm(config.remember)
    end
    vim.cmd("Forewarn remember")
    wait_for("the remember notification", function()
      return notified ~= nil
    end)
    vim.notify = notify
    result.remembered = notified
  end)
  step(":Forewarn stats", function()
    vim.cmd("Forewarn stats")
    result.stats = wait_for_scratch("forewarn://stats")
  end)
  step(":Forewarn map", function()
    vim.cmd("wincmd p") -- back to the source window, so the map is focused on the file
    vim.cmd("Forewarn map")
    result.map = wait_for_scratch("forewarn://repo-map")
  end)
  step(":Forewarn reindex", function()
    vim.cmd("wincmd p")
    local notified = {}
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      table.insert(notified, message)
      return notify(message, level, opts)
    end
    vim.cmd("Forewarn reindex")
    wait_for("the reindex report", function()
      local last = notified[#notified]
      return last ~= nil and last:match("^Forewarn: indexed") ~= nil
    end)
    vim.notify = notify
    result.reindexed = notified[#notified]
  end)
  step(":Forewarn search, a code hit", function()
    local picked, failure
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      if level == vim.log.levels.ERROR or level == vim.log.levels.WARN then
        failure = message
      end
      return notify(message, level, opts)
    end
    -- no memory matches this query: the picker holds the code group alone; choose its first line
    vim.ui.select = function(items, opts, on_choice)
      picked = { prompt = opts.prompt, items = {} }
      local chosen
      for _, item in ipairs(items) do
        local label = opts.format_item and opts.format_item(item) or tostring(item)
        table.insert(picked.items, label)
        if not chosen and label:find("^code  ") then
          chosen, picked.chosen = item, label
        end
      end
      on_choice(chosen)
    end
    vim.cmd("Forewarn search " .. config.code_query)
    wait_for("code search results in vim.ui.select", function()
      return picked ~= nil or failure ~= nil
    end)
    vim.notify = notify
    if not picked then
      error(failure, 0)
    end
    result.code_search = picked
    result.code_jumped_to = {
      file = vim.api.nvim_buf_get_name(0),
      line = vim.api.nvim_win_get_cursor(0)[1],
    }
  end)
  step(":Forewarn restart", function()
    local before = forewarn.client(bufnr).id
    vim.cmd("Forewarn restart")
    wait_for("a new client attached after the restart", function()
      local client = forewarn.client(bufnr)
      return client ~= nil and client.id ~= before
    end)
    -- each client has its own diagnostic namespace: the new server must publish the gotcha again
    local namespace = vim.lsp.diagnostic.get_namespace(forewarn.client(bufnr).id)
    wait_for("the gotcha diagnostic from the restarted server", function()
      for _, diagnostic in ipairs(vim.diagnostic.get(bufnr, { namespace = namespace })) do
        if diagnostic.source == "forewarn" and diagnostic.message:find(config.expect, 1, true) then
          return true
        end
      end
      return false
    end)
    result.restarted = { before = before, after = forewarn.client(bufnr).id }
  end)
  -- the code actions; the cursor goes back to the gotcha, whose diagnostic is in the action's context
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { config.line, config.column - 1 })
  step("code action: remember, cancelled at the text prompt (sends nothing)", function()
    -- a command sent anyway would carry text = null: the server's error would fail the next step's notify watch
    result.code_action_cancelled = run_code_action("remember a gotcha", {}, function(seen)
      return #seen.prompts == 2 -- the type picker, then the text prompt, answered with nil
    end)
  end)
  step("code action: remember a gotcha (prompts, then the command)", function()
    local remembered = false
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      remembered = remembered or message == "Forewarn: remembered"
      return notify(message, level, opts)
    end
    result.code_action_remember = run_code_action("remember a gotcha", { text = config.code_action_text }, function()
      return remembered
    end)
    vim.notify = notify
  end)
  step("code action: supersede (prompt, then the command)", function()
    local superseded = false
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      superseded = superseded or message == "Forewarn: superseded"
      return notify(message, level, opts)
    end
    local short = tostring(result.diagnostic.code):sub(-6)
    result.code_action_supersede = run_code_action("supersede with new text (" .. short .. ")",
      { text = config.superseding_text }, function()
        return superseded
      end)
    vim.notify = notify
  end)
  step("code action: mark outdated (no prompt; the diagnostic becomes a hint)", function()
    local decision
    wait_for("the decision's diagnostic on the cursor line", function()
      for _, diagnostic in ipairs(memory_diagnostics(bufnr, config.line - 1)) do
        if diagnostic.message:find(config.remember, 1, true) then
          decision = diagnostic_code(diagnostic)
        end
      end
      return decision ~= nil
    end)
    run_code_action("mark outdated (" .. tostring(decision):sub(-6) .. ")", {}, function()
      for _, diagnostic in ipairs(memory_diagnostics(bufnr, config.line - 1)) do
        if diagnostic_code(diagnostic) == decision and diagnostic.severity == vim.diagnostic.severity.HINT then
          return true
        end
      end
      return false
    end)
    result.marked_outdated = decision
  end)
end

local ok, err = pcall(check)
result.ok = ok
result.error = (not ok) and tostring(err) or nil
result.nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch)
vim.fn.writefile({ vim.fn.json_encode(result) }, config.result)
vim.cmd("qa!")
