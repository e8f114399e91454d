-- :checkhealth forewarn
local compat = require("forewarn.compat")

local M = {}

function M.check()
  local health = compat.health()
  local forewarn = require("forewarn")
  health.start("forewarn")

  if vim.fn.has("nvim-0.7") == 1 then
    health.ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
  else
    health.error("Neovim 0.7 or newer is required")
  end
  if compat.has_lsp_start then
    health.ok("vim.lsp.start is available")
  else
    health.info("Neovim 0.7: using vim.lsp.start_client with one client per project root")
  end

  local native = forewarn.enabled_natively()
  local cmd = native and vim.lsp.config[forewarn.name].cmd or forewarn.server_cmd()
  if type(cmd) ~= "table" then
    health.info("server command: a function (vim.lsp.config), not checked here")
  elseif vim.fn.executable(cmd[1]) == 1 then
    health.ok("server command: " .. table.concat(cmd, " "))
    local version_cmd = { cmd[1] }
    if cmd[2] == "-m" then
      vim.list_extend(version_cmd, { "-m", "forewarn.cli.main" })
    end
    table.insert(version_cmd, "--version")
    local output = vim.fn.system(version_cmd)
    if vim.v.shell_error == 0 then
      health.ok(vim.trim(output))
    else
      health.error("`" .. table.concat(version_cmd, " ") .. "` failed: " .. vim.trim(output),
        { "Install Forewarn into this interpreter: pip install forewarn" })
    end
  else
    health.error("server command not found: " .. cmd[1], {
      "Install Forewarn (pip install forewarn) so `forewarn` is on PATH,",
      native and "or vim.lsp.config('forewarn', { cmd = { '/path/to/forewarn', 'serve' } })"
        or "or call require('forewarn').setup({ cmd = { '/path/to/forewarn', 'serve' } })",
    })
  end

  local settings
  if native then
    health.ok("enabled with vim.lsp.enable('forewarn') (lsp/forewarn.lua): buffers attach on open")
    settings = (vim.lsp.config[forewarn.name].settings or {}).forewarn
  elseif vim.fn.exists("#forewarn") == 1 then
    health.ok("setup() has run: buffers attach on open")
    settings = forewarn.config.settings
  else
    health.warn("setup() has not run", {
      "Add require('forewarn').setup({}) to your config,",
      "or on Neovim 0.11+ vim.lsp.enable('forewarn')",
    })
  end
  local unknown = require("forewarn.protocol").unknown_settings(settings)
  if #unknown > 0 then
    health.warn("settings the server does not know (it ignores them): " .. table.concat(unknown, ", "),
      { "See forewarn/config.py or the VS Code extension's forewarn.* settings for the names" })
  end

  local clients = compat.clients(forewarn.name)
  if #clients == 0 then
    health.info("no Forewarn server is running (open a file in a project to start one)")
  end
  for _, client in ipairs(clients) do
    health.ok(string.format("server %d running for %s", client.id, client.config.root_dir or "?"))
  end
end

return M
