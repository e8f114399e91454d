-- :Forewarn subcommands, each a Lua function over the server's workspace/executeCommand commands.
local compat = require("forewarn.compat")
local forewarn = require("forewarn")
local protocol = require("forewarn.protocol")

local M = {}

local REQUEST_TIMEOUT_MS = 30000
local SEARCH_RESULTS = 20
local REPO_MAP_BUDGET_TOKENS = 2048

local function notify(message, level)
  vim.notify("Forewarn: " .. message, level or vim.log.levels.INFO)
end

--- Runs a server command asynchronously; `on_result(result)` is called on success only. `ctx` (optional,
--- as Neovim passes to vim.lsp.commands handlers) names the client and buffer; default: the current buffer's.
--- `on_error(message)` (optional) takes a failure instead of the error notification.
function M.execute(command, argument, on_result, ctx, on_error)
  local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id) or forewarn.client()
  if not client then
    notify("no server is running for this buffer (see :checkhealth forewarn)", vim.log.levels.WARN)
    return
  end
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  local params = { command = command, arguments = { argument } }
  compat.request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      local message = command .. " failed: " .. (err.message or vim.inspect(err))
      if on_error then
        on_error(message)
      else
        notify(message, vim.log.levels.ERROR)
      end
      return
    end
    on_result(result)
  end, bufnr)
end

local function anchor_text(anchor)
  if anchor == nil then
    return nil -- the server sent no anchor field at all (e.g. stats summaries)
  end
  if type(anchor) ~= "table" then
    return "not anchored"
  end
  local file = anchor.file or (anchor.uri and vim.fn.fnamemodify(vim.uri_to_fname(anchor.uri), ":~:.")) or "?"
  local line = type(anchor.range) == "table" and (":" .. (anchor.range.start.line + 1)) or ""
  local symbol = (type(anchor.symbol) == "string" and anchor.symbol ~= "") and (" " .. M.symbol_name(anchor.symbol)) or ""
  return file .. line .. symbol
end

--- A symbol path as people read it: the server's `Node.before#2` (the second `Node.before` of its file, the id
--- commands send back) shows as `Node.before`, with its line when given, which tells overloads apart.
function M.symbol_name(symbol, line)
  local base = (symbol:gsub("#%d+$", ""))
  if base ~= symbol and line then
    return string.format("%s (line %d)", base, line)
  end
  return base
end

function M.format_memory(memory)
  local text = tostring(memory.text or ""):gsub("\n.*", "")
  local where = anchor_text(memory.anchor)
  local age = memory.age and ((where and " · " or "") .. memory.age) or ""
  local surfaced = memory.surfaced and (" · surfaced " .. tostring(memory.surfaced)) or ""
  local details = (where or "") .. age .. surfaced
  return string.format("[%s] %s%s", memory.type or "?", text, details ~= "" and ("  (" .. details:gsub("^ · ", "") .. ")") or "")
end

--- The first line of a server string field, or nil (JSON null arrives as vim.NIL).
local function first_line(value)
  if type(value) ~= "string" then
    return nil
  end
  local line = vim.trim((value:gsub("\n.*", "")))
  return line ~= "" and line or nil
end

--- A code search hit (a file and its best chunks, best first) as a picker line:
--- `code  path:line  symbol  signature`, `(test)` at the end for a test file.
function M.format_code(hit)
  local chunk = type(hit.chunks) == "table" and hit.chunks[1] or nil
  local parts = { "code" }
  local line = chunk and type(chunk.range) == "table" and (":" .. (chunk.range.start.line + 1)) or ""
  table.insert(parts, tostring(hit.file or "?") .. line)
  local symbol = chunk and first_line(chunk.symbol)
  if symbol and symbol ~= "<module>" then -- the indexer's name for a file's top level: the path says it already
    table.insert(parts, symbol)
  end
  local signature = chunk and first_line(chunk.signature)
  if signature then
    table.insert(parts, signature)
  end
  if hit.is_test == true then
    table.insert(parts, "(test)")
  end
  return table.concat(parts, "  ")
end

--- Moves the cursor to the start of `anchor` ({uri?, file?, range?}), opening its file; false when it names none.
local function jump_to_anchor(anchor)
  if type(anchor) ~= "table" or not (anchor.uri or anchor.file) then
    return false
  end
  local client = forewarn.client()
  local uri = anchor.uri
  if not uri then
    uri = vim.uri_from_fname((client and client.config.root_dir or vim.fn.getcwd()) .. "/" .. anchor.file)
  end
  local start = type(anchor.range) == "table" and anchor.range.start or { line = 0, character = 0 }
  local location = { uri = uri, range = { start = start, ["end"] = start } }
  compat.jump(location, client and client.offset_encoding or "utf-16")
  return true
end

M.jump_to_anchor = jump_to_anchor

local function jump_to(memory)
  if not jump_to_anchor(memory.anchor) then
    notify(M.format_memory(memory))
  end
end

--- One picker line for a search item: a memory, or a code hit (`{ code = file hit }`).
function M.format_search_item(item)
  return item.code and M.format_code(item.code) or M.format_memory(item)
end

--- Shows `memories`, then the code hits `files` (optional: `{file, uri, is_test, chunks}`, best first), in
--- vim.ui.select; a memory jumps to its anchor, a code hit to its best chunk.
function M.pick(memories, prompt, files)
  local items = vim.list_extend({}, memories)
  for _, hit in ipairs(type(files) == "table" and files or {}) do
    table.insert(items, { code = hit })
  end
  if #items == 0 then
    notify("no memories match")
    return
  end
  if #memories == 0 then
    prompt = prompt .. " — no memories match, only code"
  end
  vim.ui.select(items, { prompt = prompt, format_item = M.format_search_item, kind = "forewarn.memory" }, function(choice)
    if not choice then
      return
    end
    if choice.code then
      local hit = choice.code
      local chunk = type(hit.chunks) == "table" and hit.chunks[1] or nil
      if not jump_to_anchor(chunk or { uri = hit.uri, file = hit.file }) then
        notify(M.format_code(hit))
      end
      return
    end
    jump_to(choice)
    if choice.id then
      M.execute(protocol.COMMANDS.accept, { id = choice.id }, function() end) -- the user acted on it: reinforce
    end
  end)
end

function M.search(query)
  local function run(q)
    if not q or vim.trim(q) == "" then
      return
    end
    M.execute(protocol.COMMANDS.search, { query = q, k = SEARCH_RESULTS }, function(result)
      result = result or {}
      local lexical = result.mode == "lexical" and " [lexical: words only]" or ""
      if result.message and result.message ~= vim.NIL and #(result.memories or {}) == 0 then
        -- the relevance floor held every memory back: say which came closest
        vim.notify("Forewarn: " .. result.message, vim.log.levels.INFO)
      end
      M.pick(result.memories or {}, "Forewarn: " .. q .. lexical, result.files)
    end)
  end
  if query and query ~= "" then
    run(query)
  else
    vim.ui.input({ prompt = "Forewarn search: " }, run)
  end
end

local function buffer_range(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local first, last
  if opts and opts.range and opts.range > 0 then
    first, last = opts.line1 - 1, opts.line2 - 1
  else
    local line = vim.api.nvim_win_get_cursor(0)[1] - 1
    first, last = line, line
  end
  local last_text = vim.api.nvim_buf_get_lines(bufnr, last, last + 1, false)[1] or ""
  return { start = { line = first, character = 0 }, ["end"] = { line = last, character = #last_text } }
end

local function ask_text(prompt, on_text)
  vim.ui.input({ prompt = prompt }, function(body)
    if body and vim.trim(body) ~= "" then
      on_text(vim.trim(body))
    end
  end)
end

--- Asks for a memory type (`suggested` first) and, unless `text` is given, its text; then calls
--- `on_answer(type, text)`. Cancelling either prompt calls nothing.
function M.ask_memory(text, suggested, on_answer)
  local types = vim.tbl_filter(function(t)
    return t ~= suggested
  end, protocol.MEMORY_TYPES)
  if vim.tbl_contains(protocol.MEMORY_TYPES, suggested) then
    table.insert(types, 1, suggested)
  end
  vim.ui.select(types, { prompt = "Forewarn: what kind of memory?" }, function(kind)
    if not kind then
      return
    end
    if text and vim.trim(text) ~= "" then
      on_answer(kind, vim.trim(text))
    else
      ask_text("Remember (" .. kind .. "): ", function(body)
        on_answer(kind, body)
      end)
    end
  end)
end

--- What a user may answer when a new memory contradicts an existing one (forewarn.resolveConflict's resolution).
M.RESOLUTIONS = {
  { label = "Replace the old one", resolution = "replace", done = "the new memory replaces the old one" },
  { label = "Both hold", resolution = "both", done = "both hold; this pair will not be flagged again" },
  { label = "Mark contested", resolution = "contested", done = "both marked contested until someone resolves them" },
}

--- After remember: each memory the new one seems to contradict, asked in turn with vim.ui.select
--- (kind "forewarn.conflict"); no choice leaves that pair as it is (`forewarn memory resolve` settles it later).
function M.ask_conflicts(result, ctx)
  local conflicts = (type(result) == "table" and type(result.conflicts) == "table") and result.conflicts or {}
  local function ask(i)
    local other = conflicts[i]
    if other == nil then
      return
    end
    local cues = type(other.cues) == "table" and #other.cues > 0 and (" (" .. table.concat(other.cues, ", ") .. ")") or ""
    local prompt = "Forewarn: this contradicts " .. M.format_memory(other) .. cues .. ". What holds now?"
    local function format_item(item)
      return item.label
    end
    vim.ui.select(M.RESOLUTIONS, { prompt = prompt, kind = "forewarn.conflict", format_item = format_item }, function(choice)
      if not choice then
        return ask(i + 1)
      end
      local argument = { id = result.id, other = other.id, resolution = choice.resolution }
      M.execute(protocol.COMMANDS.resolve_conflict, argument, function()
        notify(choice.done)
        ask(i + 1)
      end, ctx)
    end)
  end
  ask(1)
end

local function reporter(ctx)
  return function(result)
    local conflicts = (type(result) == "table" and type(result.conflicts) == "table") and #result.conflicts or 0
    local said = (result and result.merged) and "merged with a similar memory" or "remembered"
    if conflicts == 0 then
      notify(said)
      return
    end
    notify(said .. "; it contradicts " .. (conflicts == 1 and "an existing memory" or (conflicts .. " memories")))
    M.ask_conflicts(result, ctx)
  end
end

local report_remembered = reporter(nil)

--- Remembers `text` (asked for when nil) of a type picked by the user, anchored to the range or cursor line.
--- `opts.private`: the user's alone, never exported to the team's file (`:Forewarn remember --private …`).
function M.remember(text, opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local argument = { private = (opts and opts.private) and true or nil }
  if vim.api.nvim_buf_get_name(bufnr) ~= "" and vim.bo[bufnr].buftype == "" then
    argument.uri = vim.uri_from_bufnr(bufnr)
    argument.range = buffer_range(opts)
  end
  M.ask_memory(text, nil, function(kind, body)
    argument.type, argument.text = kind, body
    M.execute(protocol.COMMANDS.remember, argument, report_remembered)
  end)
end

-- not vim.deepcopy: on 0.7 it cannot copy the vim.NIL (JSON null) these arguments hold
local function shallow_copy(argument)
  return vim.tbl_extend("force", {}, type(argument) == "table" and argument or {})
end

--- vim.lsp.commands handlers for the server's code actions whose argument carries `text: null`
--- ("remember a gotcha here", "supersede"): ask for the text, then send the command to that client.
--- A filled-in argument goes through unchanged.
M.code_action_commands = {
  [protocol.COMMANDS.remember] = function(command, ctx)
    local argument = shallow_copy((command.arguments or {})[1])
    local function send(kind, body)
      argument.type, argument.text = kind, body
      M.execute(command.command, argument, reporter(ctx), ctx)
    end
    if type(argument.text) == "string" then
      send(argument.type, argument.text)
    else
      M.ask_memory(nil, type(argument.type) == "string" and argument.type or nil, send)
    end
  end,
  -- "edit and accept" carries `text: null` (vim.NIL); plain "accept" has no text and goes through as it is
  [protocol.COMMANDS.accept_suggestion] = function(command, ctx)
    local argument = shallow_copy((command.arguments or {})[1])
    local function send(body)
      argument.text = body
      M.execute(command.command, argument, function()
        notify("suggestion accepted")
      end, ctx)
    end
    if argument.text == vim.NIL then
      ask_text("Accept as (the memory's text): ", send)
    else
      send(argument.text)
    end
  end,
  -- the "N more" diagnostic's list: the file's memories, then those on the code it uses, in the picker
  [protocol.COMMANDS.open_list] = function(command, ctx)
    M.execute(command.command, shallow_copy((command.arguments or {})[1]), function(result)
      result = result or {}
      M.pick(result.memories or {}, ("Forewarn: memories on %s and the code it uses"):format(result.file or "this file"))
    end, ctx)
  end,
  [protocol.COMMANDS.supersede] = function(command, ctx)
    local argument = shallow_copy((command.arguments or {})[1])
    local function send(body)
      argument.text = body
      M.execute(command.command, argument, function()
        notify("superseded")
      end, ctx)
    end
    if type(argument.text) == "string" then
      send(argument.text)
    else
      ask_text("Supersede with (what is true now): ", send)
    end
  end,
}

--- A read-only scratch buffer in a split.
function M.show_scratch(name, lines, filetype)
  local bufnr = vim.api.nvim_create_buf(false, true) -- unlisted, buftype=nofile
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].bufhidden = "wipe"
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, bufnr, name) -- a second one while the first is open keeps no name
  vim.cmd("botright split") -- nvim_open_win can only split from 0.10 on
  vim.api.nvim_win_set_buf(0, bufnr)
  return bufnr
end

function M.map()
  local focus = {}
  if vim.bo.buftype == "" and vim.api.nvim_buf_get_name(0) ~= "" then
    focus = { vim.uri_from_bufnr(0) }
  end
  M.execute(protocol.COMMANDS.repo_map, { budget = REPO_MAP_BUDGET_TOKENS, focus = focus }, function(result)
    M.show_scratch("forewarn://repo-map", vim.split((result and result.text) or "", "\n", { plain = true }), "text")
  end)
end

--- The stats as Markdown lines: counts, stale memories, important modules without memories.
function M.stats_lines(stats)
  local lines = { "# Forewarn: memory health", "" }
  local overview = { { "total", "Memories" }, { "stale", "Stale" }, { "mode", "Search mode" }, { "reason", "Why" },
    { "vectors", "Vectors indexed" } }
  for _, entry in ipairs(overview) do
    local value = stats[entry[1]]
    if value ~= nil and value ~= vim.NIL and type(value) ~= "table" then
      table.insert(lines, string.format("- %s: %s", entry[2], tostring(value)))
    end
  end
  table.insert(lines, "")
  local function section(title, value, empty)
    table.insert(lines, "## " .. title)
    if type(value) ~= "table" or next(value) == nil then
      table.insert(lines, empty)
    elseif (vim.islist or vim.tbl_islist)(value) then
      for _, item in ipairs(value) do
        if type(item) == "table" and item.text then
          table.insert(lines, "- " .. M.format_memory(item))
        elseif type(item) == "table" then
          local score = item.score and string.format(" (%.3f)", item.score) or ""
          table.insert(lines, "- " .. tostring(item.file or vim.inspect(item)) .. score)
        else
          table.insert(lines, "- " .. tostring(item))
        end
      end
    else
      local keys = vim.tbl_keys(value)
      table.sort(keys)
      for _, key in ipairs(keys) do
        table.insert(lines, string.format("- %s: %s", key, tostring(value[key])))
      end
    end
    table.insert(lines, "")
  end
  section("By type", stats.by_type, "No memories yet.")
  section("By status", stats.by_status, "No memories yet.")
  if type(stats.stale) == "table" then
    section("Stale (the anchored code changed since)", stats.stale, "None.")
  end
  section("Most surfaced", stats.most_surfaced, "Nothing surfaced yet.")
  section("Important modules without memories", stats.important_without_memories, "None.")
  return lines
end

--- `{uri}` of the current file buffer: in a multi-root setup the server answers for that file's folder.
local function current_file()
  if vim.bo.buftype == "" and vim.api.nvim_buf_get_name(0) ~= "" then
    return { uri = vim.uri_from_bufnr(0) }
  end
  return vim.empty_dict()
end

function M.stats()
  M.execute(protocol.COMMANDS.stats, current_file(), function(result)
    M.show_scratch("forewarn://stats", M.stats_lines(result or {}), "markdown")
  end)
end

function M.reindex()
  notify("reindexing…")
  M.execute(protocol.COMMANDS.reindex, current_file(), function(result)
    result = result or {}
    notify(string.format("indexed %s files (%s changed, %s deleted) in %.1f s", result.files or "?",
      result.changed or 0, result.deleted or 0, (result.duration_ms or 0) / 1000))
  end)
end

--- Where a suggestion came from: the server's `origin` when it sends one, else (an older server) "commit abc1234 by Ann,
--- 2024-03-02" for a mined suggestion (its newest commit), or its source.
function M.suggestion_origin(memory)
  -- the server's words when it sends them ("suggested by an agent (Claude Code 2.1.0)", "suggested from commit …")
  if type(memory.origin) == "string" and memory.origin ~= "" then
    return memory.origin
  end
  local newest
  local commits = type(memory.provenance) == "table" and memory.provenance.commits or {}
  for _, commit in ipairs(type(commits) == "table" and commits or {}) do
    if type(commit) == "table" and type(commit.sha) == "string" then
      if not newest or tostring(commit.date or "") > tostring(newest.date or "") then
        newest = commit
      end
    end
  end
  if not newest then
    return memory.source == "comment" and "a warning comment" or tostring(memory.source or "")
  end
  local who = type(newest.author) == "string" and (" by " .. newest.author) or ""
  local when = type(newest.date) == "string" and (", " .. newest.date:sub(1, 10)) or ""
  return "commit " .. newest.sha:sub(1, 7) .. who .. when
end

local VERDICTS = { "Accept", "Edit and accept", "Dismiss", "Open" }

--- The diff a suggestion was mined from (forewarn.suggestionDiff) in a scratch buffer (filetype diff) in a
--- split below, focus kept where it was; `on_shown(close)` runs once it shows (or failed to load: the error is
--- shown instead), `close()` closing the split.
function M.show_suggestion_diff(memory, on_shown)
  local function show(text)
    local origin = vim.api.nvim_get_current_win()
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text or "", "\n", { plain = true }))
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = "diff"
    vim.bo[buf].modifiable = false
    vim.cmd("botright split")
    local win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    if vim.api.nvim_win_is_valid(origin) then
      vim.api.nvim_set_current_win(origin)
    end
    on_shown(function()
      if vim.api.nvim_win_is_valid(win) then
        vim.api.nvim_win_close(win, true)
      end
    end)
  end
  M.execute(protocol.COMMANDS.suggestion_diff, { id = memory.id }, function(result)
    show(result and result.diff or "")
  end, nil, function(message)
    show("Forewarn: no diff for this suggestion: " .. message)
  end)
end

--- :Forewarn review — the suggestions mined from the history (best first) in vim.ui.select; then a verdict
--- for the chosen one. The server republishes open files, so an accepted gotcha turns from hint to warning.
function M.review()
  M.execute(protocol.COMMANDS.review, vim.empty_dict(), function(result)
    local suggestions = result and result.suggestions or {}
    if #suggestions == 0 then
      notify("no suggestions to review")
      return
    end
    local prompt = string.format("Forewarn: review suggestions (%s)", tostring(result.total or #suggestions))
    local function format_item(memory)
      local item = M.format_memory(memory) .. " · " .. M.suggestion_origin(memory)
      local change = memory.proposedChange -- a proposal: what accepting it changes in another memory
      if type(change) == "table" and type(change.summary) == "string" then
        item = item .. " · " .. change.summary
      end
      return item
    end
    vim.ui.select(suggestions, { prompt = prompt, format_item = format_item, kind = "forewarn.suggestion" }, function(memory)
      if not memory then
        return
      end
      M.show_suggestion_diff(memory, function(close_diff)
        vim.ui.select(VERDICTS, { prompt = M.suggestion_origin(memory) .. ": " }, function(verdict)
          close_diff()
          if verdict == "Accept" then
            M.execute(protocol.COMMANDS.accept_suggestion, { id = memory.id }, function()
              notify("suggestion accepted")
            end)
          elseif verdict == "Edit and accept" then
            vim.ui.input({ prompt = "Accept as: ", default = memory.text }, function(text)
              if text and vim.trim(text) ~= "" then
                M.execute(protocol.COMMANDS.accept_suggestion, { id = memory.id, text = vim.trim(text) }, function()
                  notify("suggestion accepted")
                end)
              end
            end)
          elseif verdict == "Dismiss" then
            M.execute(protocol.COMMANDS.dismiss_suggestion, { id = memory.id }, function()
              notify("suggestion dismissed")
            end)
          elseif verdict == "Open" then
            jump_to(memory)
          end
        end)
      end)
    end)
  end)
end

M.subcommands = {
  search = function(args)
    M.search(table.concat(args, " "))
  end,
  remember = function(args, opts)
    local private = args[1] == "--private"
    if private then
      args = vim.list_slice(args, 2)
    end
    M.remember(table.concat(args, " "), vim.tbl_extend("force", opts or {}, { private = private }))
  end,
  review = function()
    M.review()
  end,
  panel = function(args)
    require("forewarn.panel").open(args[1])
  end,
  map = function()
    M.map()
  end,
  stats = function()
    M.stats()
  end,
  reindex = function()
    M.reindex()
  end,
  restart = function()
    forewarn.restart()
  end,
}

function M.run(opts)
  local args = vim.deepcopy(opts.fargs)
  local name = table.remove(args, 1)
  local subcommand = name and M.subcommands[name]
  if not subcommand then
    notify("usage: :Forewarn " .. table.concat(M.names(), "|"), vim.log.levels.WARN)
    return
  end
  subcommand(args, opts)
end

function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

function M.complete(arg_lead, cmd_line)
  -- only the first argument is a subcommand; the rest is free text
  local words = vim.split(vim.trim((cmd_line:gsub("^%S*Forewarn!?", ""))), "%s+")
  if #words > 1 or (#words == 1 and words[1] ~= "" and cmd_line:match("%s$")) then
    return {}
  end
  return vim.tbl_filter(function(name)
    return name:find(arg_lead, 1, true) == 1
  end, M.names())
end

return M
