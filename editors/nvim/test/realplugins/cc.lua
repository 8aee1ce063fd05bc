local function out(s) io.stdout:write(s .. '\n') end
local ok, err = xpcall(function()
vim.opt.rtp:append(os.getenv('EXTRA_RTP') or '')
vim.opt.rtp:prepend(os.getenv('PLUGINS') .. '/plenary')
vim.opt.rtp:prepend(os.getenv('PLUGINS') .. '/codecompanion.nvim')
vim.opt.rtp:prepend(os.getenv('SIGHTLINE_NVIM_PLUGIN'))
local sl = require('sightline').setup({ cmd = { os.getenv('SIGHTLINE_BIN'), 'serve', '--state-dir', os.getenv('STATE_DIR') } })
vim.cmd('edit ' .. os.getenv('WORKSPACE') .. '/demo.py')
local b = vim.api.nvim_get_current_buf()
require('codecompanion').setup({ extensions = { sightline = { opts = { session = 'realcc' } } } })
local config = require('codecompanion.config')
out('tools registered: ' .. tostring(config.interactions.chat.tools.sightline_read ~= nil) .. ', group: ' .. tostring(config.interactions.chat.tools.groups.sightline ~= nil))
local chat = require('codecompanion').chat()
out('chat: ' .. tostring(chat ~= nil))
local function run(name, args)
  local n = #chat.messages
  chat.tools:execute(chat, { { id = 'call_' .. name .. n, type = 'function', ['function'] = { name = name, arguments = vim.json.encode(args) } } })
  local msg
  vim.wait(8000, function()
    for i = n + 1, #chat.messages do
      if chat.messages[i].role == 'tool' then msg = chat.messages[i] return true end
    end
  end, 10)
  return msg
end
local m = run('sightline_read', { path = 'demo.py', start = 49, ['end'] = 53 })
out('read -> ' .. (m and m.content or 'NO TOOL MESSAGE'))
m = run('sightline_edit', { path = 'demo.py', edits = { { type = 'replace_line', ref = '51:524g', new_content = 'class scheduler:  # real codecompanion' } } })
out('edit -> ' .. (m and m.content:sub(1, 120) or 'NO TOOL MESSAGE'))
out('buffer line 51: ' .. vim.api.nvim_buf_get_lines(b, 50, 51, false)[1])
m = run('sightline_edit', { path = 'demo.py', edits = { { type = 'delete_line', ref = '150:xhfq' } } })
out('unread edit -> ' .. (m and m.content:sub(1, 100) or 'NO TOOL MESSAGE'))
for i, msg in ipairs(chat.messages) do out(i .. ' ' .. tostring(msg.role) .. ' ' .. tostring(type(msg.content)=='string' and msg.content:sub(1,60):gsub('\n',' ') or msg.content)) end
out('status ' .. tostring(chat.tools.status) .. ' stderr ' .. vim.inspect(chat.tools.stderr))
end, debug.traceback)
if not ok then out('ERROR ' .. tostring(err)) end
vim.cmd('qall!')
