-- Small shims over the Neovim API differences between 0.7 and current releases.
local M = {}

M.has_lsp_start = vim.lsp.start ~= nil -- 0.8+

--- Every active LSP client named `name`, optionally only those attached to `bufnr`.
function M.clients(name, bufnr)
  if vim.lsp.get_clients then -- 0.10+
    return vim.lsp.get_clients({ name = name, bufnr = bufnr })
  end
  local found = {}
  for _, client in pairs(vim.lsp.get_active_clients()) do
    if client.name == name and (bufnr == nil or vim.lsp.buf_is_attached(bufnr, client.id)) then
      table.insert(found, client)
    end
  end
  return found
end

--- Whether vim.lsp.enable(name) is in effect (0.11+; vim.lsp.is_enabled is public from 0.12).
function M.lsp_enabled(name)
  if vim.lsp.is_enabled then
    return vim.lsp.is_enabled(name)
  end
  return type(vim.lsp._enabled_configs) == "table" and vim.lsp._enabled_configs[name] ~= nil
end

--- client:request (0.11+ method call) or client.request (older).
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.stop(client)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:stop()
  end
  return client.stop()
end

function M.is_stopped(client)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- The nearest ancestor directory of `path` holding one of `markers`, or nil.
function M.find_root(path, markers)
  if vim.fs and vim.fs.find then -- 0.8+
    local found = vim.fs.find(markers, { path = path, upward = true })[1]
    return found and vim.fs.dirname(found) or nil
  end
  local dir = path
  while dir and dir ~= "" do
    for _, marker in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

--- Moves the cursor to an LSP location, opening its file.
function M.jump(location, offset_encoding)
  if vim.lsp.util.show_document then -- 0.10+
    return vim.lsp.util.show_document(location, offset_encoding, { focus = true })
  end
  return vim.lsp.util.jump_to_location(location, offset_encoding)
end

--- A health reporter with the current names (start/ok/warn/error/info), whatever this Neovim has.
function M.health()
  local health = vim.health or require("health")
  return {
    start = health.start or health.report_start,
    ok = health.ok or health.report_ok,
    warn = health.warn or health.report_warn,
    error = health.error or health.report_error,
    info = health.info or health.report_info,
  }
end

return M
