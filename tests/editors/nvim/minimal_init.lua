-- The smallest config that loads the plugin from this checkout, as a user's init would.
local repo = assert(os.getenv("FOREWARN_REPO"), "FOREWARN_REPO must name the repository root")
vim.opt.runtimepath:prepend(repo .. "/editor-clients/nvim")
vim.opt.swapfile = false
vim.cmd("runtime plugin/forewarn.lua")
require("forewarn").setup({ python = os.getenv("FOREWARN_PYTHON") })
