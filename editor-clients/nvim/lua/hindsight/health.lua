-- :checkhealth hindsight
local compat = require("hindsight.compat")

local M = {}

function M.check()
  local health = compat.health()
  local hindsight = require("hindsight")
  health.start("hindsight")

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

  local cmd = hindsight.server_cmd()
  if vim.fn.executable(cmd[1]) == 1 then
    health.ok("server command: " .. table.concat(cmd, " "))
    local version_cmd = { cmd[1] }
    if cmd[2] == "-m" then
      vim.list_extend(version_cmd, { "-m", "hindsight.daemon.cli" })
    end
    table.insert(version_cmd, "--version")
    local output = vim.fn.system(version_cmd)
    if vim.v.shell_error == 0 then
      health.ok(vim.trim(output))
    else
      health.error("`" .. table.concat(version_cmd, " ") .. "` failed: " .. vim.trim(output),
        { "Install Hindsight into this interpreter: pip install hindsight" })
    end
  else
    health.error("server command not found: " .. cmd[1], {
      "Install Hindsight (pip install hindsight) so `hindsight` is on PATH,",
      "or call require('hindsight').setup({ cmd = { '/path/to/hindsight', 'serve' } })",
    })
  end

  if vim.fn.exists("#hindsight") == 1 then
    health.ok("setup() has run: buffers attach on open")
  else
    health.warn("setup() has not run", { "Add require('hindsight').setup({}) to your config" })
  end

  local clients = compat.clients(hindsight.name)
  if #clients == 0 then
    health.info("no Hindsight server is running (open a file in a project to start one)")
  end
  for _, client in ipairs(clients) do
    health.ok(string.format("server %d running for %s", client.id, client.config.root_dir or "?"))
  end
end

return M
