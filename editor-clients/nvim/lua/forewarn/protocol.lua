-- The vocabulary shared with the server (forewarn/memory/store.py, forewarn/lsp/commands.py, forewarn/config.py),
-- spelled out here and nowhere else in the plugin; tests/editors/test_parity.py keeps it identical.
local M = {}

--- Every memory type the server accepts, in its order (the first is the default suggestion).
M.MEMORY_TYPES = { "gotcha", "decision", "error_pattern", "dead_end", "convention", "preference", "todo", "note" }

--- The server's workspace/executeCommand commands.
M.COMMANDS = {
  search = "forewarn.search",
  remember = "forewarn.remember",
  supersede = "forewarn.supersede",
  forget = "forewarn.forget",
  confirm = "forewarn.confirm",
  mark_outdated = "forewarn.markOutdated",
  repo_map = "forewarn.repoMap",
  stats = "forewarn.stats",
  reindex = "forewarn.reindex",
  accept = "forewarn.accept",
  accept_suggestion = "forewarn.acceptSuggestion",
  dismiss_suggestion = "forewarn.dismissSuggestion",
  review = "forewarn.review",
  suggestion_diff = "forewarn.suggestionDiff",
  restore = "forewarn.restore",
  reanchor = "forewarn.reanchor",
  resolve_conflict = "forewarn.resolveConflict",
  file_memories = "forewarn.fileMemories",
  open_list = "forewarn.openList",
}

--- Sent by the server whenever memories may have changed: the panel asks again.
M.MEMORIES_CHANGED = "$/forewarn/memoriesChanged"

--- Every memory status the server knows, as the panel words them; `in_file`: listed by the panel's This file
--- section, in this order.
M.MEMORY_STATUSES = {
  { status = "contested", label = "contested", in_file = true },
  { status = "active", label = "current", in_file = true },
  { status = "stale", label = "stale", in_file = true },
  { status = "orphaned", label = "orphaned (code gone)", in_file = true },
  { status = "suggested", label = "suggested", in_file = true },
  { status = "superseded", label = "superseded", in_file = false },
  { status = "archived", label = "forgotten", in_file = false },
  { status = "dismissed", label = "dismissed", in_file = false },
}

--- What this plugin declares under `capabilities.experimental` at initialize: it asks the user for the text of a
--- code action whose argument says `text: null` (remember, supersede, edit and accept). A client that does not
--- declare it (an agent host, a plain LSP setup) is offered only actions whose arguments are complete.
M.EXPERIMENTAL_CAPABILITIES = { forewarn = { promptsForText = true } }

--- Adds M.EXPERIMENTAL_CAPABILITIES to initialize params (a `before_init`), keeping what else is declared there.
function M.declare_prompts(params)
  local capabilities = params.capabilities or {}
  capabilities.experimental = vim.tbl_deep_extend("force", capabilities.experimental or {}, M.EXPERIMENTAL_CAPABILITIES)
  params.capabilities = capabilities
end

--- The client handlers the panel needs: $/forewarn/memoriesChanged refreshes an open :Forewarn panel.
function M.panel_handlers()
  return {
    [M.MEMORIES_CHANGED] = function(...)
      require("forewarn.panel").on_memories_changed(...)
    end,
  }
end

--- Every daemon setting (forewarn/config.py's tree) as a dotted path, as `settings = {...}` spells it.
M.SETTINGS = {
  "index.max_file_bytes",
  "index.max_line_length",
  "index.exclude",
  "index.workers",
  "embedder.enabled",
  "embedder.model",
  "embedder.n_ctx",
  "embedder.pooling",
  "embedder.dimensions",
  "embedder.n_gpu_layers",
  "embedder.n_threads",
  "embedder.n_batch",
  "embedder.query_prefix",
  "embedder.document_prefix",
  "diagnostics.enabled",
  "diagnostics.max_warnings",
  "diagnostics.max_diagnostics",
  "diagnostics.include_neighbours",
  "mining.enabled",
  "mining.on_open",
  "mining.hold_back",
  "agents.trust",
  "log_level",
}

--- The keys in a `settings` table that the server does not know (it would ignore them with a message), as
--- dotted paths; camelCase is accepted as the server accepts it. Sorted, for stable reports.
function M.unknown_settings(settings)
  local leaves, sections = {}, {}
  for _, path in ipairs(M.SETTINGS) do
    leaves[path] = true
    local section = path:match("(.+)%.")
    while section do
      sections[section] = true
      section = section:match("(.+)%.")
    end
  end
  local unknown = {}
  local function walk(value, prefix)
    for key, child in pairs(value) do
      local name = tostring(key):gsub("%-", "_"):gsub("(%u)", function(c)
        return "_" .. c:lower()
      end)
      if sections[prefix .. name] and type(child) == "table" then
        walk(child, prefix .. name .. ".")
      elseif not leaves[prefix .. name] then
        table.insert(unknown, prefix .. tostring(key))
      end
    end
  end
  walk(type(settings) == "table" and settings or {}, "")
  table.sort(unknown)
  return unknown
end

return M
