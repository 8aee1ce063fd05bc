-- Drives sightline's avante custom_tools the way avante.nvim (commit
-- a9334315) does, without avante itself (it needs Neovim 0.11): the same call
-- shapes, arguments and callbacks.
--
--   llm_tools.get_tools      custom_tools (a list, or a function returning one) appended to the tools
--   provider:transform_tool  Utils.llm_tool_param_fields_to_json_schema(tool.param.fields):
--                            fields {name, description, type, optional, choices}, arrays with
--                            `items` (a field), objects with `fields`
--   llm_tools.process_tool_use
--                            func(tool_use.input, { session_ctx, on_log(log), set_store, on_complete(result, err),
--                            streaming, tool_use_id }); result == nil and err == nil means asynchronous;
--                            a non-string result is JSON-encoded
local H = {}

local function check_fields(fields, where)
  for _, f in ipairs(fields) do
    assert(type(f.name) == 'string' and f.name ~= '', where .. ': field without name')
    assert(type(f.type) == 'string', where .. '.' .. f.name .. ': no type')
    assert(type(f.description) == 'string', where .. '.' .. f.name .. ': no description')
    if f.type == 'array' then
      assert(type(f.items) == 'table' and f.items.name, where .. '.' .. f.name .. ': array without items field')
      if f.items.fields then check_fields(f.items.fields, where .. '.' .. f.name .. '[]') end
    end
    if f.type == 'object' and f.fields then check_fields(f.fields, where .. '.' .. f.name) end
  end
end

function H.get_tools(custom_tools)
  if type(custom_tools) == 'function' then custom_tools = custom_tools() end
  for _, t in ipairs(custom_tools) do
    assert(type(t.name) == 'string' and type(t.description) == 'string', 'tool name/description')
    assert(type(t.param) == 'table' and t.param.type == 'table' and type(t.param.fields) == 'table', t.name .. ': param')
    check_fields(t.param.fields, t.name)
    assert(type(t.returns) == 'table', t.name .. ': returns')
    assert(type(t.func) == 'function', t.name .. ': func')
  end
  return custom_tools
end

--- process_tool_use for one tool_use {name, input, id}; done(result_str, err).
function H.process_tool_use(tools, tool_use, done)
  local tool
  for _, t in ipairs(tools) do
    if t.name == tool_use.name then tool = t end
  end
  if not tool then return done(nil, 'This tool is not provided: ' .. tool_use.name) end
  local logs = {}
  local function handle_result(result, err)
    local s
    if type(result) == 'string' then s = result elseif result ~= nil then s = vim.json.encode(result) end
    return s, err
  end
  local completed = false
  local result, err = tool.func(tool_use.input, {
    session_ctx = {},
    on_log = function(log) table.insert(logs, log) end,
    set_store = function() end,
    on_complete = function(r, e)
      assert(not completed, 'on_complete called twice')
      completed = true
      done(handle_result(r, e))
    end,
    streaming = nil,
    tool_use_id = tool_use.id or 'toolu_1',
  })
  if result == nil and err == nil then return end
  done(handle_result(result, err))
end

return H
