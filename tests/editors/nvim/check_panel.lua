-- Run inside a real headless Neovim by tests/editors/test_nvim_panel.py: open a file of the panel workspace,
-- :Forewarn panel, then as a user: accept a suggestion in Review with its key, go to another file (BufEnter), and
-- let another process mark a memory outdated (the server's $/forewarn/memoriesChanged). The panel's lines after
-- each step are written as JSON for pytest. Waits are vim.wait on a condition.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
local result = { ok = false, steps = {}, snapshots = {} }
local forewarn, panel -- required inside check(): a plugin that fails to load is a result, not a hang

local function now_ms()
  return vim.loop.hrtime() / 1e6
end

local function lines()
  local buf = panel and panel.state().buf
  return buf and vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_lines(buf, 0, -1, false) or {}
end

local function has(text)
  for _, line in ipairs(lines()) do
    if line:find(text, 1, true) then
      return true
    end
  end
  return false
end

local function wait_for(what, condition)
  if not vim.wait(config.timeout_ms, condition, 20) then
    error("timed out after " .. config.timeout_ms .. " ms waiting for " .. what .. "\n" .. table.concat(lines(), "\n"), 0)
  end
end

local function step(name, action)
  local started = now_ms()
  local ok, err = pcall(action)
  table.insert(result.steps, { name = name, ms = math.floor(now_ms() - started) })
  if not ok then
    error(name .. ": " .. tostring(err), 0)
  end
  result.snapshots[name] = lines()
end

local function panel_window()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == panel.state().buf then
      return win
    end
  end
end

--- The panel's first line at or after the line starting with `section` that holds `text` (1-based), or nil.
local function line_of(section, text)
  local inside = false
  for i, line in ipairs(lines()) do
    inside = inside or line:find(section, 1, true) == 1
    if inside and line:find(text, 1, true) then
      return i
    end
  end
end

local function check()
  forewarn, panel = require("forewarn"), require("forewarn.panel")
  step("open the file and :Forewarn panel", function()
    vim.cmd("edit " .. vim.fn.fnameescape(config.root .. "/" .. config.file))
    local bufnr = vim.api.nvim_get_current_buf()
    wait_for("the forewarn client to attach", function()
      return forewarn.client(bufnr) ~= nil
    end)
    vim.cmd("Forewarn panel")
    wait_for("the three sections", function()
      return has("This file: " .. config.file .. " — 8 memories") and has("Review: 3 suggestions")
        and has("current by source")
    end)
    result.file_window = vim.api.nvim_get_current_win() ~= panel_window()
  end)
  step("a in Review accepts; the memory is current in This file, a warning", function()
    local win = panel_window()
    vim.api.nvim_set_current_win(win)
    local at = assert(line_of("Review:", config.accept), "no Review line for the suggestion")
    vim.api.nvim_win_set_cursor(win, { at, 0 })
    vim.cmd("normal a") -- the buffer's own mapping, as a keypress
    wait_for("the accepted memory in This file and one suggestion less", function()
      return has("Review: 2 suggestions") and has("! gotcha: " .. config.accept)
    end)
    vim.cmd("wincmd p")
  end)
  step("BufEnter: This file follows the buffer", function()
    vim.cmd("edit " .. vim.fn.fnameescape(config.root .. "/" .. config.other_file))
    wait_for("This file to show " .. config.other_file, function()
      return has("This file: " .. config.other_file)
    end)
  end)
  step("another process marks a memory outdated: the server says so, the panel asks again", function()
    local cli = { os.getenv("FOREWARN_PYTHON"), "-m", "forewarn.cli.main", "memory", "outdated", config.outdated_id,
      "--workspace", config.root }
    local out = vim.fn.system(cli)
    assert(vim.v.shell_error == 0, out)
    wait_for("the memory marked stale in This file", function()
      return has("~ decision (stale): " .. config.outdated_text)
    end)
  end)
  result.ok = true
end

local ok, err = pcall(check)
result.error = not ok and tostring(err) or nil
vim.fn.writefile({ vim.fn.json_encode(result) }, config.result)
vim.cmd("qa!")
