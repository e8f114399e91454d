-- Registers the :Hindsight command only; the logic lives in lua/hindsight/ and starts from setup().
if vim.g.loaded_hindsight then
  return
end
vim.g.loaded_hindsight = true

vim.api.nvim_create_user_command("Hindsight", function(opts)
  require("hindsight.commands").run(opts)
end, {
  nargs = "*",
  range = true,
  desc = "Hindsight: search | remember | map | stats | reindex | restart",
  complete = function(arg_lead, cmd_line)
    return require("hindsight.commands").complete(arg_lead, cmd_line)
  end,
})
