-- :Forewarn panel — a side buffer with what Forewarn knows: This file (the last file buffer's memories by symbol),
-- Review (the suggestion queue by file, best first) and Health (sparklines of the trajectory, the lists beside it).
-- The keys are on its first line; it follows BufEnter and the server's $/forewarn/memoriesChanged.
local forewarn = require("forewarn")
local protocol = require("forewarn.protocol")

local M = {}

local NAME = "forewarn://panel"
local WIDTH = 64 -- columns of the side window
local REFRESH_DEBOUNCE_MS = 200 -- a save re-indexes, then republishes: one refresh for the burst
local TEXT_CHARS = 72 -- a memory's first line, cut here (the whole text is a keypress away: <CR> opens it)
local SPARK = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" } -- the same heights as `forewarn stats`
-- the severity markers of This file's rows (LSP numbers); statuses that matter more than severity have their own
local SEVERITY_MARK = { [1] = "E", [2] = "!", [3] = "i", [4] = "·" }
local STATUS_MARK = { suggested = "?", stale = "~", orphaned = "x" }
local SOURCE_LABELS = { typed = "typed here", mined = "mined", imported = "imported", agent = "by agents" }
M.KEYS = {
  { key = "<CR>", what = "open", action = "open" },
  { key = "a", what = "accept", action = "accept" },
  { key = "e", what = "edit+accept", action = "edit_accept" },
  { key = "d", what = "dismiss", action = "dismiss" },
  { key = "g", what = "commit", action = "show_commit" },
  { key = "c", what = "confirm", action = "confirm" },
  { key = "o", what = "outdated", action = "mark_outdated" },
  { key = "s", what = "supersede", action = "supersede" },
  { key = "f", what = "forget", action = "forget" },
  { key = "r", what = "refresh", action = "refresh" },
  { key = "q", what = "close", action = "close" },
}

local state = {
  buf = nil, -- the panel's buffer
  file_buf = nil, -- the file buffer This file shows
  since = nil, -- the Health window (`:Forewarn panel 90d`)
  file = nil, -- forewarn.fileMemories' answer
  review = nil, -- forewarn.review's answer
  stats = nil, -- forewarn.stats' answer
  problems = {}, -- section → the server's error
  items = {}, -- panel line (1-based) → { memory = …, uri = …, range = … }
  pending = false,
}

local function commands()
  return require("forewarn.commands")
end

local function notify(message, level)
  vim.notify("Forewarn: " .. message, level or vim.log.levels.INFO)
end

local function status_label(status)
  for _, entry in ipairs(protocol.MEMORY_STATUSES) do
    if entry.status == status then
      return entry.label
    end
  end
  return tostring(status or "")
end

--- "2 contested · 1 suggested": the non-zero counts, in the order This file lists statuses.
function M.counts_text(counts)
  local parts = {}
  for _, entry in ipairs(protocol.MEMORY_STATUSES) do
    local n = type(counts) == "table" and counts[entry.status] or nil
    if type(n) == "number" and n > 0 then
      table.insert(parts, n .. " " .. entry.label)
    end
  end
  return table.concat(parts, " · ")
end

local function plural(n, one, many)
  return n .. " " .. (n == 1 and one or (many or (one .. "s")))
end

local function first_line(text, max)
  local line = vim.trim((tostring(text or ""):gsub("\n.*", "")))
  max = max or TEXT_CHARS
  if vim.fn.strchars(line) > max then
    line = vim.fn.strcharpart(line, 0, max - 1) .. "…"
  end
  return line
end

local function str(value)
  return (type(value) == "string" or type(value) == "number") and tostring(value) or nil
end

--- One memory as a panel line: its marker, type (and status unless current), text, then where it came from.
function M.memory_line(memory, indent)
  local status = memory.status
  local mark = STATUS_MARK[status] or SEVERITY_MARK[memory.severity or 3] or "i"
  local kind = tostring(memory.type or "?"):gsub("_", " ")
  if status and status ~= "active" then
    kind = kind .. " (" .. status_label(status) .. ")"
  end
  local tail = {}
  for _, part in ipairs({ str(memory.origin), str(memory.age) }) do
    table.insert(tail, part)
  end
  local suffix = #tail > 0 and ("  — " .. table.concat(tail, ", ")) or ""
  return string.format("%s%s %s: %s%s", indent, mark, kind, first_line(memory.text), suffix)
end

--- `values` as a sparkline scaled to their maximum (a zero blank, anything above at least the lowest bar).
function M.sparkline(values)
  local peak = 0
  for _, v in ipairs(values) do
    peak = math.max(peak, v)
  end
  local out = {}
  for _, v in ipairs(values) do
    if v <= 0 or peak <= 0 then
      table.insert(out, SPARK[1])
    else
      table.insert(out, SPARK[math.max(2, math.floor(v / peak * (#SPARK - 1) + 0.5) + 1)])
    end
  end
  return table.concat(out)
end

--- The review queue grouped by file in the server's order (files by their best suggestion; never re-ranked).
function M.group_by_file(suggestions)
  local groups, by_file = {}, {}
  for _, memory in ipairs(suggestions or {}) do
    local file = type(memory.anchor) == "table" and str(memory.anchor.file) or nil
    local key = file or ""
    if not by_file[key] then
      by_file[key] = { file = file, suggestions = {} }
      table.insert(groups, by_file[key])
    end
    table.insert(by_file[key].suggestions, memory)
  end
  return groups
end

--- The panel's lines and what each line stands for (`items[line]`).
function M.render()
  local lines, items = {}, {}
  local function add(line, item)
    table.insert(lines, line)
    if item then
      items[#lines] = item
    end
  end
  local keys = {}
  for _, k in ipairs(M.KEYS) do
    table.insert(keys, k.key .. " " .. k.what)
  end
  add("Forewarn  " .. table.concat(keys, "  "))
  add("")
  -- This file
  local file = state.file
  if state.problems.file then
    add("This file: " .. state.problems.file)
  elseif not file then
    add("This file: open a file to see what Forewarn knows about it")
  else
    local more = (file.more or 0) > 0 and (" (" .. file.more .. " more not listed)") or ""
    local total = file.total or 0
    add(string.format("This file: %s — %s%s", file.file, total == 0 and "no memories yet" or
      (plural(total, "memory", "memories") .. ": " .. M.counts_text(file.counts)), more))
    for _, group in ipairs(file.symbols or {}) do
      local at = type(group.range) == "table" and group.range.start and (group.range.start.line + 1) or nil
      local name = str(group.symbol) and commands().symbol_name(group.symbol, at) or "(whole file)"
      add("  " .. name .. "  " .. M.counts_text(group.counts), { uri = file.uri, range = group.range })
      for _, memory in ipairs(group.memories or {}) do
        add(M.memory_line(memory, "    "), { memory = memory })
      end
    end
  end
  add("")
  -- Review
  local review = state.review
  if state.problems.review then
    add("Review: " .. state.problems.review)
  else
    local suggestions = review and review.suggestions or {}
    local total = review and review.total or #suggestions
    add(total == 0 and "Review: no suggestions wait for review" or
      ("Review: " .. plural(total, "suggestion") .. " to review, best first"))
    for _, group in ipairs(M.group_by_file(suggestions)) do
      add("  " .. (group.file or "(whole workspace)") .. "  " .. plural(#group.suggestions, "suggestion"))
      for _, memory in ipairs(group.suggestions) do
        add(M.memory_line(memory, "    "), { memory = memory })
      end
    end
  end
  add("")
  -- Health
  vim.list_extend(lines, M.health_lines(state.stats, state.problems.stats))
  return lines, items
end

--- The Health section: the trajectory as sparklines, then the lists (the numbers `forewarn stats` prints).
function M.health_lines(stats, problem)
  if problem then
    return { "Health: " .. problem }
  end
  if type(stats) ~= "table" then
    return { "Health: asking the server…" }
  end
  local lines = {}
  local by_status = type(stats.by_status) == "table" and stats.by_status or {}
  local waiting = by_status.suggested or 0
  table.insert(lines, string.format("Health: %s · %s stale · %s waiting · search %s", plural(stats.total or 0,
    "memory", "memories"), tostring(stats.stale or 0), plural(waiting, "suggestion"), tostring(stats.mode or "?")))
  local t = type(stats.trajectory) == "table" and stats.trajectory or nil
  if t and type(t.buckets) == "table" and #t.buckets > 0 then
    table.insert(lines, string.format("  %s to %s, by %s", t.since, t["until"], t.bucket))
    local function series(title, values, keys, label, tail)
      table.insert(lines, "  " .. title)
      for _, key in ipairs(keys) do
        local v = type(values) == "table" and values[key] or nil
        if type(v) == "table" then
          table.insert(lines, string.format("    %-11s %s  %s", label(key), M.sparkline(v), tail(v)))
        end
      end
    end
    local function now(v)
      return "now " .. tostring(v[#v] or 0)
    end
    local function total(v)
      local n = 0
      for _, x in ipairs(v) do
        n = n + x
      end
      return n .. " in all"
    end
    local sources = vim.tbl_keys(type(t.by_source) == "table" and t.by_source or {})
    table.sort(sources, function(a, b)
      local order = { typed = 1, mined = 2, imported = 3, agent = 4 }
      return (order[a] or 9) < (order[b] or 9)
    end)
    series("current by source", t.by_source, sources, function(k)
      return SOURCE_LABELS[k] or k
    end, now)
    local statuses = {}
    for _, entry in ipairs(protocol.MEMORY_STATUSES) do
      if entry.in_file then
        table.insert(statuses, entry.status)
      end
    end
    series("by status", t.by_status, statuses, function(status)
      return status == "active" and status_label(status) or status -- one word: the sparklines line up
    end, now)
    local flows = vim.tbl_keys(type(t.events) == "table" and t.events or {})
    table.sort(flows)
    series("what happened, per " .. tostring(t.bucket), t.events, flows, function(k)
      return k
    end, total)
  end
  local files = type(stats.important_files) == "table" and stats.important_files or {}
  if #files > 0 then
    table.insert(lines, "  most important files (PageRank)")
    for _, f in ipairs(files) do
      local held = (f.memories or 0) > 0 and plural(f.memories, "memory", "memories") or "none"
      table.insert(lines, string.format("    %2s. %-30s %s", tostring(f.rank), tostring(f.file), held))
    end
  end
  local function list(title, items, what)
    if type(items) ~= "table" or #items == 0 then
      return
    end
    table.insert(lines, "  " .. title)
    for _, m in ipairs(items) do
      local where = tostring(str(m.file) or "(workspace)") .. (str(m.symbol) and ("::" .. commands().symbol_name(m.symbol)) or "")
      table.insert(lines, string.format("    %s  %s  %s", what(m), where, first_line(m.text, 50)))
    end
  end
  list("shown most", stats.shown_most, function(m)
    return tostring(m.shown or 0) .. "×"
  end)
  list("turned away most", stats.dismissed_most, function(m)
    return tostring(m.times or 1) .. "× " .. tostring(m.last or ""):gsub("_", " ")
  end)
  list("stale", stats.stale_memories, function(m)
    return "(" .. tostring(m.why or "stale") .. ")"
  end)
  return lines
end

local function is_file_buffer(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].buftype == "" and vim.api.nvim_buf_get_name(bufnr) ~= ""
    and not vim.api.nvim_buf_get_name(bufnr):match("^%a[%w+.-]*://")
end

local function panel_window()
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    return nil
  end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == state.buf then
      return win
    end
  end
  return nil
end

local function draw()
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    return
  end
  local lines, items = M.render()
  state.items = items
  vim.bo[state.buf].modifiable = true
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, lines)
  vim.bo[state.buf].modifiable = false
  local ns = vim.api.nvim_create_namespace("forewarn-panel")
  vim.api.nvim_buf_clear_namespace(state.buf, ns, 0, -1)
  for i, line in ipairs(lines) do
    if i == 1 then
      vim.api.nvim_buf_add_highlight(state.buf, ns, "Comment", 0, 0, -1)
    elseif line:match("^%S") then
      vim.api.nvim_buf_add_highlight(state.buf, ns, "Title", i - 1, 0, -1)
    elseif line:match("^    ! ") then
      vim.api.nvim_buf_add_highlight(state.buf, ns, "DiagnosticWarn", i - 1, 4, 5)
    elseif line:match("^    %? ") then
      vim.api.nvim_buf_add_highlight(state.buf, ns, "DiagnosticHint", i - 1, 4, 5)
    end
  end
end

local function client_ctx()
  local bufnr = state.file_buf and vim.api.nvim_buf_is_valid(state.file_buf) and state.file_buf or nil
  local client = forewarn.client(bufnr)
  return client and { client_id = client.id, bufnr = bufnr or 0 } or nil
end

--- Asks the server for all three sections again, then redraws (each answer redraws as it comes).
function M.refresh()
  if not panel_window() and not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    return
  end
  local ctx = client_ctx()
  if not ctx then
    state.problems = { file = "no server is running (see :checkhealth forewarn)" }
    draw()
    return
  end
  local function ask(section, command, argument, key)
    commands().execute(command, argument, function(result)
      state[key] = result
      state.problems[section] = nil
      draw()
    end, ctx, function(message)
      state.problems[section] = message
      draw()
    end)
  end
  if state.file_buf and is_file_buffer(state.file_buf) then
    ask("file", protocol.COMMANDS.file_memories, { uri = vim.uri_from_bufnr(state.file_buf) }, "file")
  end
  ask("review", protocol.COMMANDS.review, vim.empty_dict(), "review")
  ask("stats", protocol.COMMANDS.stats, state.since and { since = state.since } or vim.empty_dict(), "stats")
end

--- Many changes in a row (a save re-indexes and republishes) make one refresh.
function M.refresh_soon()
  if state.pending then
    return
  end
  state.pending = true
  vim.defer_fn(function()
    state.pending = false
    M.refresh()
  end, REFRESH_DEBOUNCE_MS)
end

--- The server's $/forewarn/memoriesChanged (a client handler: err, result, ctx, config).
function M.on_memories_changed()
  if panel_window() then
    M.refresh_soon()
  end
end

local function item_at_cursor()
  if not state.buf or vim.api.nvim_get_current_buf() ~= state.buf then
    return nil
  end
  return state.items[vim.api.nvim_win_get_cursor(0)[1]]
end

--- The window the panel opens things in: the last one that is not the panel.
local function file_window()
  local panel = panel_window()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if win ~= panel and vim.api.nvim_win_get_config(win).relative == "" then
      return win
    end
  end
  return nil
end

local function memory_at_cursor(want_suggestion)
  local item = item_at_cursor()
  local memory = item and item.memory
  if not memory then
    notify("put the cursor on a memory first", vim.log.levels.WARN)
    return nil
  end
  if want_suggestion ~= nil and (memory.status == "suggested") ~= want_suggestion then
    notify(want_suggestion and "that is not a suggestion (a, e, d, g are for Review)" or
      "that is a suggestion: accept (a), edit and accept (e) or dismiss (d) it", vim.log.levels.WARN)
    return nil
  end
  return memory
end

local function send(command, argument, done)
  commands().execute(command, argument, function()
    notify(done)
    M.refresh_soon()
  end, client_ctx())
end

-- an action on the memory (or, with want_suggestion, the suggestion) under the cursor: the command with its id
local function on_memory(want_suggestion, command, done)
  return function()
    local memory = memory_at_cursor(want_suggestion)
    if memory then
      send(command, { id = memory.id }, done)
    end
  end
end

-- the same, with a text the person writes first (its current text to edit); an empty answer sends nothing
local function with_text(want_suggestion, command, prompt, done)
  return function()
    local memory = memory_at_cursor(want_suggestion)
    if memory then
      vim.ui.input({ prompt = prompt, default = memory.text }, function(text)
        if text and vim.trim(text) ~= "" then
          send(command, { id = memory.id, text = vim.trim(text) }, done)
        end
      end)
    end
  end
end

M.actions = {
  open = function()
    local item = item_at_cursor()
    if not item then
      return
    end
    local anchor = item.memory and item.memory.anchor or { uri = item.uri, range = item.range }
    if type(anchor) ~= "table" or not (anchor.uri or anchor.file) then
      if item.memory then
        notify(commands().format_memory(item.memory))
      end
      return
    end
    local win = file_window()
    if win then
      vim.api.nvim_set_current_win(win)
    else
      vim.cmd("topleft vsplit")
    end
    commands().jump_to_anchor(anchor)
  end,
  accept = on_memory(true, protocol.COMMANDS.accept_suggestion, "suggestion accepted"),
  edit_accept = with_text(true, protocol.COMMANDS.accept_suggestion, "Accept as: ", "suggestion accepted"),
  dismiss = on_memory(true, protocol.COMMANDS.dismiss_suggestion, "suggestion dismissed"),
  show_commit = function()
    local memory = memory_at_cursor(true)
    if memory then
      commands().show_suggestion_diff(memory, function() end)
    end
  end,
  confirm = on_memory(false, protocol.COMMANDS.confirm, "confirmed: still true"),
  mark_outdated = on_memory(false, protocol.COMMANDS.mark_outdated, "marked outdated"),
  supersede = with_text(false, protocol.COMMANDS.supersede, "Supersede with (what is true now): ", "superseded"),
  forget = on_memory(
    false,
    protocol.COMMANDS.forget,
    "forgotten (archived; forewarn memory restore brings it back)"
  ),
  refresh = function()
    M.refresh()
  end,
  close = function()
    local win = panel_window()
    if win and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(win, true)
    end
  end,
}

local function make_buffer()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "forewarn-panel"
  pcall(vim.api.nvim_buf_set_name, buf, NAME)
  for _, k in ipairs(M.KEYS) do
    vim.keymap.set("n", k.key, M.actions[k.action], { buffer = buf, nowait = true, silent = true, desc = "Forewarn: " .. k.what })
  end
  return buf
end

--- :Forewarn panel [since] — opens (or focuses) the panel beside the current window; `since` bounds Health.
function M.open(since)
  if since and since ~= "" then
    state.since = since
  end
  local current = vim.api.nvim_get_current_buf()
  if is_file_buffer(current) then
    state.file_buf = current
  end
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    state.buf = make_buffer()
  end
  local win = panel_window()
  if not win then
    local from = vim.api.nvim_get_current_win()
    vim.cmd("botright vsplit")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, state.buf)
    vim.api.nvim_win_set_width(win, WIDTH)
    vim.wo[win].wrap = false
    vim.wo[win].number = false
    vim.wo[win].relativenumber = false
    vim.wo[win].cursorline = true
    vim.wo[win].winfixwidth = true
    vim.wo[win].signcolumn = "no"
    if vim.api.nvim_win_is_valid(from) then
      vim.api.nvim_set_current_win(from)
    end
  end
  local group = vim.api.nvim_create_augroup("forewarn-panel", { clear = true })
  vim.api.nvim_create_autocmd("BufEnter", {
    group = group,
    callback = function(event)
      if event.buf ~= state.buf and is_file_buffer(event.buf) and event.buf ~= state.file_buf then
        state.file_buf = event.buf
        M.refresh_soon()
      end
    end,
    desc = "Forewarn: the panel's This file follows the buffer",
  })
  draw()
  M.refresh()
end

--- The panel's state, for tests and :checkhealth: its buffer and what it shows.
function M.state()
  return state
end

return M
