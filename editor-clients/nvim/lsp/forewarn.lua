-- Neovim 0.11+: the Forewarn server for vim.lsp.config / vim.lsp.enable (found on 'runtimepath' as lsp/forewarn.lua).
--
--   vim.lsp.config("forewarn", { settings = { forewarn = { embedder = { model = "all-MiniLM-L6-v2" } } } })
--   vim.lsp.enable("forewarn")
--
-- This is the same client require("forewarn").setup() starts on 0.7+ (use one or the other): one server per
-- root, the daemon's settings tree sent as initializationOptions and as the `forewarn` settings section, and
-- the code actions' prompts. Override `cmd` to use an interpreter: { "/venv/bin/python", "-m",
-- "forewarn.cli.main", "serve" }.

---@type vim.lsp.Config
return {
  cmd = { "forewarn", "serve" },
  -- no filetypes: memories are about any file
  root_markers = { ".forewarn", ".git" },
  -- a file outside any project is left alone, as with setup(): opening ~/notes.txt never indexes your home
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    if vim.bo[bufnr].buftype ~= "" or name == "" or name:match("^%a[%w+.-]*://") then
      return -- unnamed, or not a local file (fugitive://, oil://…)
    end
    local root = vim.fs.root(bufnr, vim.lsp.config.forewarn.root_markers)
    if root then
      on_dir(root)
    end
  end,
  settings = { forewarn = vim.empty_dict() },
  -- the server reads its settings at startup from initializationOptions: the `forewarn` section, unless
  -- init_options says otherwise
  before_init = function(params, config)
    if params.initializationOptions == nil or vim.tbl_isempty(params.initializationOptions) then
      params.initializationOptions = (config.settings or {}).forewarn or vim.empty_dict()
    end
    -- the code actions' prompts below are this plugin's: say so, so the server offers those actions
    require("forewarn.protocol").declare_prompts(params)
  end,
  -- the server's "remember"/"supersede" code actions leave the text to the editor to ask for
  commands = require("forewarn.commands").code_action_commands,
  -- $/forewarn/memoriesChanged refreshes an open :Forewarn panel
  handlers = require("forewarn.protocol").panel_handlers(),
}
