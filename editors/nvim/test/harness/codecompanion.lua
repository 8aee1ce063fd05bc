-- Drives the sightline codecompanion extension the way codecompanion.nvim
-- (v19.22.0, commit f1afd025) does, without codecompanion itself (it needs
-- Neovim 0.11): the same call shapes, arguments and callbacks.
--
--   codecompanion.setup      for name, schema in pairs(config.extensions):
--                            ext = require('codecompanion._extensions.' .. name); ext.setup(schema.opts or {})
--   Tools:_resolve_and_prepare_tool
--                            tool_config = config.interactions.chat.tools[name];
--                            tool = tool_config.callback(); deepcopy; name, function_call,
--                            args = vim.json.decode(arguments), opts merged
--   Runner:run_tool          cmd(tools, args, { input, output_cb, register_job }); a non-nil
--                            return is the output, else output_cb is called once
--   Orchestrator:success/error
--                            tool.output.success(tool, tool_output, { cmd = args, tools = tools })
--                            tool.output.error(tool, tools.stderr, { cmd = args, tools = tools })
--   Chat:add_tool_output     (tool, for_llm, for_user)
local H = {}

function H.load(ext_opts)
  local config = {
    interactions = { chat = { tools = { groups = {} } } },
    extensions = { sightline = { opts = ext_opts or {} } },
  }
  package.loaded['codecompanion.config'] = config
  for name, schema in pairs(config.extensions) do
    if schema.enabled ~= false then
      local ext = require('codecompanion._extensions.' .. name)
      assert(type(ext) == 'table' and type(ext.setup) == 'function', 'extension has no setup')
      ext.setup(schema.opts or {})
    end
  end
  H.config = config
  return config
end

--- Run one tool call as the chat would; done(output, status, tool) gets the
--- chat's recorded add_tool_output {tool, for_llm, for_user}.
function H.call(name, arguments, done)
  local tools_config = H.config.interactions.chat.tools
  local tool_config = assert(tools_config[name], 'no tool ' .. name)
  local resolved = type(tool_config.callback) == 'function' and tool_config.callback() or tool_config
  assert(resolved and resolved.schema and resolved.schema.type == 'function', name .. ': schema is not a function schema')
  assert(resolved.schema['function'].name == name, name .. ': schema name')
  assert(resolved.schema['function'].parameters.type == 'object', name .. ': parameters')
  local tool = vim.deepcopy(resolved)
  tool.name = name
  tool.function_call = { id = 'call_1', type = 'function', ['function'] = { name = name, arguments = arguments } }
  local args = arguments
  if type(args) == 'string' then
    if args == '' then args = '{}' end
    args = vim.json.decode(args)
  end
  tool.args = args
  tool.opts = vim.tbl_extend('force', tool.opts or {}, tool_config.opts or {})

  local chat = { outputs = {} }
  function chat:add_tool_output(t, for_llm, for_user)
    table.insert(self.outputs, { tool = t, for_llm = for_llm, for_user = for_user })
  end
  local tools = { chat = chat, stdout = {}, stderr = {}, status = nil, constants = { STATUS_ERROR = 'error', STATUS_SUCCESS = 'success' } }
  if tool.handlers and tool.handlers.setup then tool.handlers.setup(tool, { tools = tools }) end
  if tool.output and tool.output.prompt then
    local p = tool.output.prompt(tool, { tools = tools })
    assert(type(p) == 'string' and p ~= '', name .. ': prompt')
  end
  local cmd = tool.cmds[1]
  local finished = false
  local function output_handler(msg)
    if finished then return end
    finished = true
    if msg.status == 'error' then
      tools.status = 'error'
      table.insert(tools.stderr, msg.data or 'An error occurred')
      tool.output.error(tool, tools.stderr, { cmd = args, tools = tools })
    else
      tools.status = 'success'
      table.insert(tools.stdout, msg.data)
      tool.output.success(tool, { msg.data }, { cmd = args, tools = tools })
    end
    if tool.handlers and tool.handlers.on_exit then tool.handlers.on_exit(tool, { tools = tools }) end
    done(chat.outputs[#chat.outputs], msg.status, tool)
  end
  local ok, output = pcall(cmd, tools, args, { input = nil, output_cb = output_handler, register_job = function() end })
  if not ok then return output_handler({ status = 'error', data = output }) end
  if output ~= nil then output_handler(output) end
end

return H
