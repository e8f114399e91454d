-- Registers the :Forewarn command only; the logic lives in lua/forewarn/ and starts from setup().
if vim.g.loaded_forewarn then
  return
end
vim.g.loaded_forewarn = true

vim.api.nvim_create_user_command("Forewarn", function(opts)
  require("forewarn.commands").run(opts)
end, {
  nargs = "*",
  range = true,
  desc = "Forewarn: search | remember | review | panel | map | stats | reindex | restart",
  complete = function(arg_lead, cmd_line)
    return require("forewarn.commands").complete(arg_lead, cmd_line)
  end,
})
