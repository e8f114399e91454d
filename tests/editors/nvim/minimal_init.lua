-- The smallest config that loads the plugin from this checkout, as a user's init would.
local repo = assert(os.getenv("HINDSIGHT_REPO"), "HINDSIGHT_REPO must name the repository root")
vim.opt.runtimepath:prepend(repo .. "/editor-clients/nvim")
vim.opt.swapfile = false
vim.cmd("runtime plugin/hindsight.lua")
require("hindsight").setup({ python = os.getenv("HINDSIGHT_PYTHON") })
