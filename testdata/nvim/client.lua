-- A real LSP client nobody here wrote: Neovim's built-in one (0.7+), headless,
-- driving `sightline serve`. Run by TestNeovimClient:
--   SIGHTLINE_BIN=... WORKSPACE=... nvim --headless -n -u NONE -c 'luafile client.lua'
-- Every wait is bounded; the script exits non-zero on the first failed check.
local bin = os.getenv('SIGHTLINE_BIN')
local ws = os.getenv('WORKSPACE')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end
local function check(cond, msg)
  if not cond then fail(msg) end
  io.stdout:write('ok  ' .. msg .. '\n')
end

local coverage = {}
local exit_code
local client_id = vim.lsp.start_client({
  name = 'sightline',
  cmd = { bin, 'serve', '--log-level', 'debug', '--state-dir', ws .. '/.state' },
  root_dir = ws,
  workspace_folders = { { uri = vim.uri_from_fname(ws), name = 'ws' } },
  handlers = {
    ['sightline/coverage'] = function(_, params) table.insert(coverage, params) end,
  },
  on_exit = function(code) exit_code = code end,
})
check(client_id ~= nil, 'client started')

vim.cmd('edit ' .. ws .. '/demo.py')
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)
local client = vim.lsp.get_client_by_id(client_id)
check(vim.wait(5000, function() return client.initialized end, 10), 'initialized')
check(client.offset_encoding == 'utf-16', 'offset encoding utf-16')
local uri = vim.uri_from_bufnr(bufnr)

local function request(method, params)
  local res = client.request_sync(method, params, 5000, bufnr)
  if not res then fail(method .. ' timed out') end
  if res.err then fail(method .. ': ' .. vim.inspect(res.err)) end
  return res.result
end

local res = request('sightline/read', { textDocument = { uri = uri }, range = { start = 1, ['end'] = 5 }, agent = 'nvim' })
check(res.ok and res.range.start == 1 and res.range['end'] == 5, 'read lines 1-5')
check(res.content:match('^1:%w%w%w%w|') ~= nil, 'hashline annotation')

local ns = vim.lsp.diagnostic.get_namespace(client_id)
local function diags() return vim.diagnostic.get(bufnr, { namespace = ns }) end
check(vim.wait(5000, function()
  for _, d in ipairs(diags()) do if d.code == 'unread' then return true end end
end, 10), 'unread diagnostic published')
local unread
for _, d in ipairs(diags()) do if d.code == 'unread' then unread = d end end
check(unread.lnum == 5 and unread.message:find('class scheduler') ~= nil, 'unread diagnostic names its contents: ' .. unread.message)

-- Type é and an emoji at the start of line 3: incremental utf-16 sync.
vim.api.nvim_buf_set_text(bufnr, 2, 0, 2, 0, { 'é😀' })
-- And insert a line above it.
vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { '# inserted' })
local led
check(vim.wait(5000, function()
  led = request('sightline/ledger', { textDocument = { uri = uri } }).documents[1]
  return led.state == 'stale'
end, 50), 'typed line is stale')
check(#led.stale == 1 and led.stale[1].start == 4 and led.stale[1]['end'] == 4, 'stale line moved to 4: ' .. vim.inspect(led.stale))
check(vim.wait(5000, function()
  for _, c in ipairs(coverage) do if c.state == 'stale' then return true end end
end, 10), 'coverage notification')

local lenses = request('textDocument/codeLens', { textDocument = { uri = uri } })
check(#lenses == 1 and lenses[1].command.title:match('^Agent read 4/%d+ lines · 1 stale range$') ~= nil, 'code lens: ' .. vim.inspect(lenses[1] and lenses[1].command.title))

-- Reading everything also checks the server's text against the buffer.
local server_text = request('sightline/read', { textDocument = { uri = uri }, annotate = false, budget = { chars = 1000000 } })
local buf_text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
check(server_text.content == buf_text, 'server text equals the buffer after incremental changes')
check(vim.wait(5000, function()
  for _, c in ipairs(coverage) do if c.state == 'fully_read' then return true end end
end, 10), 'coverage: fully read after reading everything')

-- An edit through sightline lands in the buffer via workspace/applyEdit; the
-- disk stays untouched until the user saves.
local disk_before = table.concat(vim.fn.readfile(ws .. '/demo.py', 'b'), '\n')
local first = request('sightline/read', { textDocument = { uri = uri }, range = { start = 1, ['end'] = 1 } })
local ref1 = first.content:match('^(%d+:%w%w%w%w)|')
local res2 = request('sightline/edit', { textDocument = { uri = uri }, edits = {
  { type = 'replace_line', ref = ref1, new_content = '# edited by the agent' },
} })
check(res2.ok and res2.applied, 'sightline/edit applied: ' .. tostring(res2.message))
check(vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1] == '# edited by the agent', 'the buffer holds the edit')
check(table.concat(vim.fn.readfile(ws .. '/demo.py', 'b'), '\n') == disk_before, 'the disk is untouched before save')
vim.cmd('write')
check(vim.fn.readfile(ws .. '/demo.py')[1] == '# edited by the agent', 'the disk holds the edit after :write')

-- Shutdown then exit: the server must exit 0.
client.stop()
check(vim.wait(5000, function() return exit_code ~= nil end, 10), 'server exited after shutdown + exit')
check(exit_code == 0, 'exit code 0, got ' .. tostring(exit_code))
vim.cmd('qall!')
