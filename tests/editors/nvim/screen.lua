-- Sourced after minimal_init.lua in a tmux pane by tests/editors/test_nvim.py: once the gotcha's
-- diagnostic is in, put the cursor on the symbol and show the server's hover in a float; then signal
-- the test through `tmux wait-for`, so it captures the screen without polling.
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(assert(os.getenv("FOREWARN_TEST_CONFIG"))), "\n"))
vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.laststatus = 2
vim.o.cmdheight = 1
vim.o.shortmess = vim.o.shortmess .. "F"
-- the anchored span is the whole function: underlining it all would hide the code in a screenshot
vim.diagnostic.config({ virtual_text = true, signs = true, underline = false })

local function signal_done()
  vim.fn.system({ "tmux", "-L", config.tmux_socket, "wait-for", "-S", config.channel })
end

local function has_gotcha(bufnr)
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.source == "forewarn" and diagnostic.message:find(config.expect, 1, true) then
      return true
    end
  end
  return false
end

vim.schedule(function()
  vim.cmd("cd " .. vim.fn.fnameescape(config.root))
  vim.cmd("edit " .. vim.fn.fnameescape(config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  -- on a timeout the screen shows how far it got; the test asserts on what is on it
  if vim.wait(config.timeout_ms, function()
    return has_gotcha(bufnr)
  end, 20) then
    vim.api.nvim_win_set_cursor(0, { config.line, config.column - 1 })
    -- the server's real hover, shown with Neovim's own markdown float as `K` does; without close
    -- events, since the cursor set above would close it with a CursorMoved once this callback returns
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      position = { line = config.line - 1, character = config.column - 1 },
    }
    -- while the server's first index run holds its lock, hovers answer from the memories' stored spans,
    -- without the file's importance: ask until the answer has it (on a timeout, show the last answer)
    local contents
    vim.wait(config.timeout_ms, function()
      for _, response in pairs(vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, config.timeout_ms) or {}) do
        contents = (response.result and response.result.contents) or contents
      end
      return contents ~= nil and vim.inspect(contents):find("Importance", 1, true) ~= nil
    end, 20)
    if contents then
      local lines = vim.lsp.util.convert_input_to_markdown_lines(contents)
      -- a long memory would make the float wider than the screen; cap it as users do in their configs
      vim.lsp.util.open_floating_preview(lines, "markdown", {
        max_width = config.hover_width,
        border = "rounded",
        close_events = {},
        focus = false,
      })
    end
  end
  vim.cmd("redraw!")
  signal_done()
end)
