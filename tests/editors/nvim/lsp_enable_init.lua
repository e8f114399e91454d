-- Neovim 0.11+ without setup(): the plugin folder on 'runtimepath' and vim.lsp.enable, as a user's init would.
-- `forewarn serve` comes from PATH (the test puts the venv's bin first): lsp/forewarn.lua's default cmd.
local repo = assert(os.getenv("FOREWARN_REPO"), "FOREWARN_REPO must name the repository root")
vim.opt.runtimepath:prepend(repo .. "/editor-clients/nvim")
vim.opt.swapfile = false
vim.lsp.enable("forewarn")
