-- sightline tools for avante.nvim, as custom_tools:
--
--   require('avante').setup({ custom_tools = require('sightline.avante').tools() })
--
-- A custom tool is what avante's llm_tools take: name, description,
-- param = { type = 'table', fields = { {name, description, type, optional}, ... } },
-- returns, and func(input, opts), which avante calls with the model's input
-- and { on_log, on_complete, session_ctx, ... }. func answers through
-- opts.on_complete(result, error) and returns nil, nil (asynchronous), or
-- returns result, error when avante gives no on_complete.
local tools = require('sightline.tools')

local M = {}

-- A JSON schema's type as avante's: one name (of a nullable type, the other).
local function type_of(t)
  if type(t) ~= 'table' then return t end
  for _, x in ipairs(t) do
    if x ~= 'null' then return x end
  end
end

-- A JSON-schema property as an avante field.
local function field(name, p, optional)
  local f = { name = name, description = p.description or name, type = type_of(p.type), optional = optional }
  if p.enum then f.choices = p.enum end
  if f.type == 'array' and p.items then f.items = field('items', p.items, false) end
  if f.type == 'object' and p.properties then
    f.fields = {}
    local req = {}
    for _, r in ipairs(p.required or {}) do req[r] = true end
    local keys = vim.tbl_keys(p.properties)
    table.sort(keys)
    for _, k in ipairs(keys) do table.insert(f.fields, field(k, p.properties[k], not req[k])) end
  end
  return f
end

--- The avante custom tool for one sightline tool.
--- opts: session, agent (default 'avante'), timeout.
function M.tool(spec, opts)
  opts = opts or {}
  local run_opts = { session = opts.session, agent = opts.agent or 'avante', timeout = opts.timeout }
  -- The input schema's properties as fields: the required ones first, in
  -- the schema's order, then the others by name.
  local schema = spec.inputSchema or {}
  local props, req, names = schema.properties or {}, {}, {}
  for _, r in ipairs(schema.required or {}) do
    req[r] = true
    table.insert(names, r)
  end
  local rest = {}
  for k in pairs(props) do
    if not req[k] then table.insert(rest, k) end
  end
  table.sort(rest)
  vim.list_extend(names, rest)
  local fields, usage = {}, {}
  for _, k in ipairs(names) do
    table.insert(fields, field(k, props[k], not req[k]))
    usage[k] = props[k].description
  end
  return {
    name = spec.name,
    description = spec.description,
    param = { type = 'table', fields = fields, usage = usage },
    returns = {
      { name = 'result', description = 'The answer, as text', type = 'string' },
      { name = 'error', description = 'Why the call was refused, and what to do', type = 'string', optional = true },
    },
    func = function(input, o)
      o = o or {}
      if o.streaming then return false, 'streaming not supported' end
      if o.on_log then o.on_log(spec.name .. ' ' .. tostring((input or {}).path or '')) end
      local on_complete = o.on_complete
      if not on_complete then
        -- No callback: answer synchronously.
        local text, is_error, finished = nil, nil, false
        tools.run(spec.name, input, run_opts, function(t, e)
          text, is_error, finished = t, e, true
        end)
        vim.wait((opts.timeout or require('sightline').config().timeout) + 1000, function() return finished end, 2)
        if not finished then return nil, spec.name .. ': no answer' end
        if is_error then return nil, text end
        return text, nil
      end
      tools.run(spec.name, input, run_opts, function(text, is_error)
        if is_error then on_complete(nil, text) else on_complete(text, nil) end
      end)
      return nil, nil
    end,
  }
end

--- All sightline tools as avante custom_tools entries.
function M.tools(opts)
  local out = {}
  for _, spec in ipairs(tools.specs) do table.insert(out, M.tool(spec, opts)) end
  return out
end

return M
