-- Run by tests/editors/test_nvim.py after lsp_enable_init.lua: the client that vim.lsp.enable("forewarn")
-- starts from lsp/forewarn.lua shows the gotcha, runs the code action's prompts, and restarts with :Forewarn.
-- What Neovim saw is written as JSON for pytest to assert on. Waits are vim.wait on a condition.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
local result = { steps = {} }

local function step(name, action)
  table.insert(result.steps, name)
  local ok, err = pcall(action)
  if not ok then
    error(name .. ": " .. tostring(err), 0)
  end
end

local function wait_for(what, condition)
  if not vim.wait(config.timeout_ms, condition, 20) then
    error("timed out after " .. config.timeout_ms .. " ms waiting for " .. what, 0)
  end
end

local function client(bufnr)
  return vim.lsp.get_clients({ name = "forewarn", bufnr = bufnr })[1]
end

local function check()
  local bufnr
  step("open the file", function()
    vim.cmd("edit " .. vim.fn.fnameescape(config.root .. "/" .. config.file))
    bufnr = vim.api.nvim_get_current_buf()
  end)
  step("client attached", function()
    wait_for("vim.lsp.enable to attach the forewarn client", function()
      return client(bufnr) ~= nil
    end)
    local attached = client(bufnr)
    result.root_dir = attached.config.root_dir
    result.cmd = attached.config.cmd
    result.client_commands = vim.tbl_keys(attached.commands or {})
    table.sort(result.client_commands)
  end)
  step("gotcha diagnostic", function()
    wait_for("a forewarn diagnostic containing '" .. config.expect .. "'", function()
      for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
        if diagnostic.source == "forewarn" and diagnostic.message:find(config.expect, 1, true) then
          result.diagnostic = { message = diagnostic.message, lnum = diagnostic.lnum, severity = diagnostic.severity }
          return true
        end
      end
      return false
    end)
  end)
  step("code action: remember a gotcha (the text asked for by lsp/forewarn.lua's commands)", function()
    vim.api.nvim_win_set_cursor(0, { config.line, config.column - 1 })
    local prompts, notified = {}, nil
    local notify = vim.notify
    vim.notify = function(message, level, opts)
      notified = message
      return notify(message, level, opts)
    end
    vim.ui.select = function(items, opts, on_choice)
      if opts.kind == "codeaction" then
        for _, item in ipairs(items) do
          if opts.format_item(item):find("remember a gotcha", 1, true) then
            return on_choice(item)
          end
        end
        return on_choice(nil)
      end
      table.insert(prompts, { prompt = opts.prompt, items = items })
      on_choice(items[1])
    end
    vim.ui.input = function(opts, on_confirm)
      table.insert(prompts, { prompt = opts.prompt })
      on_confirm(config.code_action_text)
    end
    vim.lsp.buf.code_action()
    wait_for("the code action to report", function()
      return notified ~= nil and notified:find("Forewarn", 1, true) ~= nil
    end)
    vim.notify = notify
    result.code_action = { prompts = prompts, notified = notified }
  end)
  step("checkhealth", function()
    vim.cmd("checkhealth forewarn")
    result.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    vim.cmd("bwipeout")
  end)
  step(":Forewarn restart", function()
    local before = client(bufnr).id
    vim.cmd("Forewarn restart")
    wait_for("a new forewarn client", function()
      local now = client(bufnr)
      return now ~= nil and now.id ~= before and now.initialized
    end)
    result.restarted = { before = before, after = client(bufnr).id }
  end)
end

local ok, err = pcall(check)
result.ok = ok
result.error = (not ok) and tostring(err) or nil
vim.fn.writefile({ vim.fn.json_encode(result) }, config.result)
vim.cmd("qa!")
