-- Forewarn for Neovim: starts (or reuses) one `forewarn serve` per project root and attaches buffers.
local compat = require("forewarn.compat")

local M = {}

M.name = "forewarn"

local defaults = {
  -- the server command; nil = `python -m forewarn.cli.main serve` when `python` is set, else `forewarn serve`
  cmd = nil,
  python = nil,
  -- the nearest ancestor holding one of these is the workspace root
  root_markers = { ".forewarn", ".git", "pyproject.toml", "package.json", "go.mod", "Cargo.toml", "pom.xml", "build.gradle", "Gemfile", "Makefile" },
  -- a file outside any project is left alone by default, so opening ~/notes.txt never indexes your home
  -- directory; true makes the file's own directory its root
  single_file_root = false,
  -- filetypes to attach to; nil = every file buffer (memories are about any file)
  filetypes = nil,
  -- the daemon's settings tree (forewarn/config.py), sent as initializationOptions and settings:
  -- { index = { exclude = {...} }, embedder = { model = "..." }, diagnostics = { max_warnings = 3 }, log_level = "INFO" }
  settings = {},
  cmd_env = nil,
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(defaults)
M.configured = false -- setup() has run

-- Neovim 0.7 has no vim.lsp.start: we keep one client id per root ourselves.
local clients_by_root = {}

function M.server_cmd()
  if M.config.cmd then
    return M.config.cmd
  end
  if M.config.python then
    return { M.config.python, "-m", "forewarn.cli.main", "serve" }
  end
  return { "forewarn", "serve" }
end

-- Lua's {} is both a list and an object; the server needs an object even when no setting is set
local function as_object(value)
  return next(value) == nil and vim.empty_dict() or value
end

local function lsp_config(root)
  local settings = as_object(M.config.settings)
  return {
    name = M.name,
    cmd = M.server_cmd(),
    cmd_env = M.config.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ":t") } },
    -- setup()'s settings are the user's own: sent as the user section, the one place the server takes the keys
    -- that load a model, spend the machine or say whom to trust from (forewarn/lsp/settings.py)
    init_options = { user = settings },
    settings = { forewarn = { user = settings } },
    capabilities = M.config.capabilities or vim.lsp.protocol.make_client_capabilities(),
    -- the code actions' prompts (commands.lua) are this plugin's: say so, so the server offers those actions
    before_init = require("forewarn.protocol").declare_prompts,
    handlers = require("forewarn.protocol").panel_handlers(),
    on_attach = M.config.on_attach,
  }
end

local function buffer_root(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil -- unnamed, or not a local file (fugitive://, oil://…)
  end
  local filetypes = M.config.filetypes
  if filetypes and not vim.tbl_contains(filetypes, vim.bo[bufnr].filetype) then
    return nil
  end
  local path = vim.fn.fnamemodify(name, ":p:h")
  local root = compat.find_root(path, M.config.root_markers)
  if not root and M.config.single_file_root then
    root = path
  end
  return root and vim.fn.fnamemodify(root, ":p"):gsub("/$", "") or nil
end

--- Starts the server for the buffer's project root if needed and attaches the buffer. Returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = buffer_root(bufnr)
  if not root then
    return nil
  end
  if compat.has_lsp_start then
    return vim.lsp.start(lsp_config(root), { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or compat.is_stopped(client) then
    id = vim.lsp.start_client(lsp_config(root))
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- every loaded buffer that belongs to a project gets its server (after setup and after a restart)
local function attach_loaded_buffers()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.attach(bufnr)
    end
  end
end

--- The Forewarn client attached to `bufnr` (current buffer by default), or any running one.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return compat.clients(M.name, bufnr)[1] or compat.clients(M.name)[1]
end

--- True when the server is started by Neovim 0.11+'s vim.lsp.enable("forewarn") (lsp/forewarn.lua), not setup().
function M.enabled_natively()
  return not M.configured and compat.lsp_enabled(M.name)
end

--- Stops every Forewarn server and starts them again for the loaded buffers.
function M.restart()
  for _, client in ipairs(compat.clients(M.name)) do
    compat.stop(client)
  end
  clients_by_root = {}
  -- a stopped client is only gone once its process exits; wait for that before starting anew
  vim.wait(5000, function()
    return #compat.clients(M.name) == 0
  end, 50)
  if M.enabled_natively() then
    vim.lsp.enable(M.name) -- enabling again starts the config for every loaded buffer
  else
    attach_loaded_buffers()
  end
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  M.configured = true
  -- the server's "remember"/"supersede" code actions leave the text to the editor to ask for
  for command, handler in pairs(require("forewarn.commands").code_action_commands) do
    vim.lsp.commands[command] = handler
  end
  local group = vim.api.nvim_create_augroup("forewarn", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "FileType" }, {
    group = group,
    callback = function(event)
      M.attach(event.buf)
    end,
    desc = "Forewarn: attach the buffer to its project's server",
  })
  attach_loaded_buffers()
end

return M
