-- sightline tools for codecompanion.nvim, as an extension:
--
--   require('codecompanion').setup({ extensions = { sightline = { opts = {} } } })
--
-- (codecompanion finds it on the runtimepath as codecompanion._extensions.sightline.)
-- setup adds sightline's agent tools (tools.json: sightline_read,
-- sightline_edit, sightline_apply_patch, ... the same as its MCP tools), and
-- the group `sightline` holding them all, to codecompanion's chat tools:
-- `@{sightline}` in a chat gives them to the model.
--
-- A tool is what codecompanion's tool docs describe: name, schema (an OpenAI
-- function schema), cmds (functions called as fn(tools, args, {input,
-- output_cb}), answering through output_cb) and output handlers (success,
-- error, prompt, rejected, cmd_string) that add the answer to the chat.
local tools = require('sightline.tools')

local M = {}

local function last(t)
  if type(t) ~= 'table' then return t end
  local v = t[#t]
  if type(v) == 'table' then
    local parts = {}
    for _, x in ipairs(v) do table.insert(parts, tostring(x)) end
    return table.concat(parts, '\n')
  end
  return v
end

local function summary_for_user(self, text)
  local args = self.args or {}
  local what = args.path or ''
  if self.name == 'sightline_read' and args.start then
    what = string.format('%s:%s-%s', what, tostring(args.start), args['end'] and tostring(args['end']) or '')
  end
  local first = (text or ''):match('^[^\n]*') or ''
  return string.format('**%s** %s\n%s', self.name, what, first)
end

--- The codecompanion tool table for one sightline tool.
--- opts: session, agent (default 'codecompanion'), timeout.
function M.tool(spec, opts)
  opts = opts or {}
  local run_opts = { session = opts.session, agent = opts.agent or 'codecompanion', timeout = opts.timeout }
  return {
    name = spec.name,
    schema = {
      type = 'function',
      ['function'] = {
        name = spec.name,
        description = spec.description,
        parameters = tools.json_schema(spec),
      },
    },
    cmds = {
      ---@param _ table codecompanion's Tools object
      ---@param args table the model's arguments
      ---@param o { input: any, output_cb: fun(msg: { status: string, data: any }) }
      function(_, args, o)
        local cb = vim.schedule_wrap(o.output_cb)
        tools.run(spec.name, args, run_opts, function(text, is_error)
          cb({ status = is_error and 'error' or 'success', data = text })
        end)
      end,
    },
    output = {
      cmd_string = function(self) return spec.name .. ' ' .. tostring((self.args or {}).path or '') end,
      prompt = function(self)
        return string.format('Run %s on %s?', spec.name, tostring((self.args or {}).path or 'the project'))
      end,
      success = function(self, stdout, meta)
        local text = last(stdout) or ''
        meta.tools.chat:add_tool_output(self, text, summary_for_user(self, text))
      end,
      error = function(self, stderr, meta)
        local text = last(stderr) or 'sightline: unknown error'
        meta.tools.chat:add_tool_output(self, text, summary_for_user(self, text))
      end,
      rejected = function(self, meta)
        local reason = meta and meta.opts and meta.opts.reason
        local msg = 'The user rejected the ' .. spec.name .. ' call'
        if reason and reason ~= '' then msg = msg .. ': ' .. reason end
        meta.tools.chat:add_tool_output(self, msg)
      end,
    },
  }
end

--- The tool configs as codecompanion's config holds them (description,
--- callback returning the tool, opts), and the group.
--- opts.require_approval: true to ask before the tools that write.
function M.configs(opts)
  opts = opts or {}
  local out, names = {}, {}
  for _, spec in ipairs(tools.specs) do
    local tool = M.tool(spec, opts)
    local approve = opts.require_approval == true and spec.write
    out[spec.name] = {
      description = spec.summary,
      callback = function() return tool end,
      opts = { require_approval_before = approve, requires_approval = approve },
    }
    table.insert(names, spec.name)
  end
  local group = {
    description = 'sightline: read files with LINE:HASH refs and edit them exactly',
    tools = names,
    prompt = "I'm giving you ${tools}. Read files with sightline_read (each line comes as LINE:HASH|content) and "
      .. 'edit them with sightline_edit by those refs; only lines you have read can be edited.',
    opts = { collapse_tools = true },
  }
  return out, group
end

--- codecompanion extension setup: adds the tools and the `sightline` group
--- to the chat tools of codecompanion's config.
function M.setup(opts)
  local config = require('codecompanion.config')
  local interactions = config.interactions or config.strategies
  local chat = interactions and interactions.chat
  if not chat then error('sightline: codecompanion config has no chat tools (interactions.chat)') end
  chat.tools = chat.tools or {}
  chat.tools.groups = chat.tools.groups or {}
  local configs, group = M.configs(opts)
  for name, cfg in pairs(configs) do chat.tools[name] = cfg end
  chat.tools.groups.sightline = group
end

M.exports = {
  read = function(o) return require('sightline').read(o) end,
  ledger = function(o) return require('sightline').ledger(o) end,
}

return M
