local function out(s) io.stdout:write(s .. '\n') end
local ok, err = xpcall(function()
vim.opt.rtp:append(os.getenv('EXTRA_RTP') or '')
vim.opt.rtp:prepend(os.getenv('PLUGINS') .. '/plenary')
vim.opt.rtp:prepend(os.getenv('PLUGINS') .. '/avante.nvim')
vim.opt.rtp:prepend(os.getenv('SIGHTLINE_NVIM_PLUGIN'))
local sl = require('sightline').setup({ cmd = { os.getenv('SIGHTLINE_BIN'), 'serve', '--state-dir', os.getenv('STATE_DIR') } })
vim.cmd('edit ' .. os.getenv('WORKSPACE') .. '/demo.py')
local b = vim.api.nvim_get_current_buf()
local Config = require('avante.config')
Config.setup({ custom_tools = require('sightline.avante').tools({ session = 'realav' }) })
local LLMTools = require('avante.llm_tools')
local tools = LLMTools.get_tools('edit demo.py', {})
local names = {}
for _, t in ipairs(tools) do if t.name:match('^sightline') then table.insert(names, t.name) end end
out('get_tools has: ' .. table.concat(names, ', '))
local Utils = require('avante.utils')
for _, t in ipairs(tools) do
  if t.name:match('^sightline') then
    local props, req = Utils.llm_tool_param_fields_to_json_schema(t.param.fields)
    out(t.name .. ' schema: ' .. vim.json.encode({ type = 'object', properties = props, required = req }):sub(1, 160))
  end
end
local claude = require('avante.providers.claude')
local ok2, def = pcall(function() return claude:transform_tool(tools[#tools]) end)
out('claude transform_tool: ' .. tostring(ok2) .. ' ' .. (ok2 and vim.json.encode(def):sub(1, 100) or tostring(def)))
local function run(name, input)
  local res
  local r, e = LLMTools.process_tool_use(tools, { name = name, input = input, id = 'toolu_' .. name }, {
    session_ctx = {},
    on_log = function(id, tn, log, st) end,
    on_complete = function(result, error) res = { result, error } end,
  })
  if r ~= nil or e ~= nil then res = { r, e } end
  vim.wait(8000, function() return res ~= nil end, 10)
  return res
end
local r = run('sightline_read', { path = 'demo.py', start = 53, ['end'] = 56 })
out('read -> ' .. tostring(r and (r[1] or r[2])))
r = run('sightline_edit', { path = 'demo.py', edits = { { type = 'replace_line', ref = '56:vv6q', new_content = '        self._queue = []  # real avante' } } })
out('edit -> ' .. tostring(r and (r[1] or r[2])):sub(1, 80))
out('buffer line 56: ' .. vim.api.nvim_buf_get_lines(b, 55, 56, false)[1])
r = run('sightline_edit', { path = 'demo.py', edits = { { type = 'delete_line', ref = '150:xhfq' } } })
out('unread edit -> result ' .. tostring(r and r[1]) .. ' error ' .. tostring(r and r[2]):sub(1, 80))
end, debug.traceback)
if not ok then out('ERROR ' .. tostring(err)) end
vim.cmd('qall!')
