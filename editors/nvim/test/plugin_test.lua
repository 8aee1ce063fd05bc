-- The Neovim plugin in a real, headless Neovim (0.7 and later), against the
-- built server. Run by editors/nvim/plugin_test.go:
--   SIGHTLINE_BIN=... WORKSPACE=... OUTSIDE=... STATE_DIR=... \
--     nvim --headless -n -u NONE -c 'luafile editors/nvim/test/plugin_test.lua'
-- The current directory is outside the workspace (the root comes from the
-- buffer's file). Every wait is bounded; the first failed check exits 1.
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/test/[^/]*$')
vim.opt.rtp:prepend(here)
package.path = here .. '/test/?.lua;' .. package.path

local bin, ws, outside = os.getenv('SIGHTLINE_BIN'), os.getenv('WORKSPACE'), os.getenv('OUTSIDE')
local state_dir = os.getenv('STATE_DIR')
local uv = vim.uv or vim.loop
local api = vim.api

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end
local function check(cond, msg)
  if not cond then fail(msg) end
  io.stdout:write('ok  ' .. msg .. '\n')
end
local function wait(ms, cond) return vim.wait(ms, cond, 5) end

io.stdout:write('neovim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch .. '\n')
local ok_run, err_run = xpcall(function()

local sl = require('sightline')
sl.setup({
  cmd = { bin, 'serve', '--state-dir', state_dir, '--log-level', 'debug' },
  settings = { readBudget = 300 },
})

-- Attach: only file buffers inside a workspace.
vim.cmd('edit ' .. ws .. '/demo.py')
local b = api.nvim_get_current_buf()
local client
check(wait(5000, function()
  for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    if c.name == 'sightline' and vim.lsp.buf_is_attached(b, c.id) and c.initialized then client = c return true end
  end
end), 'attached to a file inside the workspace and initialized')
check(client.config.root_dir == ws, 'root is the folder holding .git above the file, not the cwd: ' .. tostring(client.config.root_dir))
check(vim.fn.getcwd() ~= ws, 'the current directory is elsewhere')
check(client.config.flags.debounce_text_changes == 0, 'debounce_text_changes = 0')

vim.cmd('edit ' .. outside .. '/loose.txt')
local loose = api.nvim_get_current_buf()
vim.cmd('edit ' .. ws .. '/.git/HEAD')
local githead = api.nvim_get_current_buf()
vim.cmd('enew')
local scratch = api.nvim_get_current_buf()
vim.wait(100)
check(not vim.lsp.buf_is_attached(loose, client.id) and #vim.tbl_keys(sl._state.clients) == 1,
  'a file outside any workspace is not attached and starts no server')
check(not vim.lsp.buf_is_attached(githead, client.id), 'a file inside .git is not attached')
check(not vim.lsp.buf_is_attached(scratch, client.id), 'a scratch buffer is not attached')
vim.cmd('buffer ' .. b)

-- Settings: workspace/configuration is answered from setup's settings.
local conf = client.handlers['workspace/configuration'](nil, { items = { { section = 'sightline' } } }, { client_id = client.id })
check(conf[1].readBudget == 300 and conf[1].session == 'default', 'workspace/configuration answers the settings')

-- Read through the API (synchronous).
local res, err = sl.read({ bufnr = b, start = 1, ['end'] = 5 })
check(res and res.ok and res.range.start == 1 and res.range['end'] == 5, 'read 1-5 through the API: ' .. tostring(err))
check(res.content:match('^1:%w%w%w%w|') ~= nil, 'hashline annotation')

-- Highlights exactly on the read lines.
local function marks_on(group)
  local lines = {}
  for _, m in ipairs(sl.marks(b)) do
    if m.group == group then table.insert(lines, m.line) end
  end
  table.sort(lines)
  return table.concat(lines, ',')
end
check(wait(5000, function() return marks_on('SightlineRead') == '1,2,3,4,5' end),
  'SightlineRead marks exactly on lines 1-5: ' .. marks_on('SightlineRead'))
check(#sl.marks(b) == 5, 'no other coverage marks')
local hl = api.nvim_get_hl_by_name('SightlineRead', false)
check(hl ~= nil, 'SightlineRead is defined')

-- The read budget from setup took effect.
local whole = sl.read({ path = 'demo.py' })
check(whole and whole.ok == false or (whole and whole.truncated == true and #whole.content <= 300),
  'readBudget 300 from setup cuts a whole-file read: ' .. tostring(whole and #whole.content))
-- And a change at run time goes out as didChangeConfiguration.
sl.configure({ readBudget = 1000 })
local w2
check(wait(3000, function()
  w2 = sl.read({ path = 'demo.py' })
  return w2 and w2.truncated and #w2.content > 300 and #w2.content <= 1000
end), 'readBudget 1000 through didChangeConfiguration: ' .. tostring(w2 and #w2.content))

-- Asynchronous read with a callback.
local got
sl.read({ bufnr = b, start = 6, ['end'] = 6, callback = function(r, e) got = { r, e } end })
check(wait(3000, function() return got ~= nil end) and got[1] and got[1].range.start == 6, 'asynchronous read with callback')

-- Coverage comes as changes after the first whole one; what they leave is
-- the ledger's read ranges.
local uri = vim.uri_from_bufnr(b)
local held, ledger_read
check(wait(5000, function()
  local l = sl.ledger({ bufnr = b })
  local doc = l and l.documents and l.documents[1]
  held = sl._state.coverage[uri]
  ledger_read = doc and vim.inspect(doc.read) or 'none'
  return doc and held and vim.inspect(held.read) == ledger_read
end), 'the coverage the changes left is the ledger\'s: ' .. vim.inspect(held and held.read) .. ' vs ' .. tostring(ledger_read))
check(sl._state.coverage_changes > 0, 'coverage arrived as changes: ' .. sl._state.coverage_changes)

-- The server's own changes (testdata/coverage/changes.json, made by the
-- engine's tests from what it sends), applied by the plugin.
local cases = vim.fn.json_decode(table.concat(vim.fn.readfile(here .. '/../../testdata/coverage/changes.json'), '\n'))
local bad
for i, c in ipairs(cases) do
  local heldc = sl._apply_coverage(nil, c.prev)
  local gotc = c.sent ~= vim.NIL and sl._apply_coverage(heldc, c.sent) or heldc
  if not vim.deep_equal(gotc, c.cur) then bad = i .. ' ' .. vim.inspect(gotc) .. ' want ' .. vim.inspect(c.cur) break end
end
check(#cases > 50 and bad == nil, 'the server\'s coverage changes apply: ' .. tostring(bad))

-- An edit changes the buffer, not the disk. Round trip: API call to buffer changed.
local disk_before = table.concat(vim.fn.readfile(ws .. '/demo.py', 'b'), '\n')
local changed_at
api.nvim_buf_attach(b, false, { on_lines = function() if not changed_at then changed_at = uv.hrtime() end end })
local samples, answers = {}, {}
for i = 1, 20 do
  local r1 = sl.read({ bufnr = b, start = 1, ['end'] = 1 })
  local ref = r1.content:match('^(%d+:%w%w%w%w)|')
  changed_at = nil
  local t0 = uv.hrtime()
  local r2, e2 = sl.edit({ bufnr = b, edits = { { type = 'replace_line', ref = ref, new_content = '# edited by the agent ' .. i } } })
  local t1 = uv.hrtime()
  if not (r2 and r2.ok and r2.applied) then fail('edit ' .. i .. ': ' .. tostring(e2 or (r2 and r2.message))) end
  if api.nvim_buf_get_lines(b, 0, 1, false)[1] ~= '# edited by the agent ' .. i or not changed_at then fail('buffer not changed by edit ' .. i) end
  table.insert(samples, (changed_at - t0) / 1e6)
  table.insert(answers, (t1 - t0) / 1e6)
end
table.sort(samples)
table.sort(answers)
io.stdout:write(string.format('edit round trip (API call to buffer changed), 20 edits: median %.2f ms, max %.2f ms; to the answer: median %.2f ms, max %.2f ms\n',
  samples[10], samples[20], answers[10], answers[20]))
check(true, 'sightline.edit applied 20 times; the buffer holds each edit')
check(table.concat(vim.fn.readfile(ws .. '/demo.py', 'b'), '\n') == disk_before, 'the disk is untouched')

-- The guard refuses an unread line.
local far = api.nvim_buf_get_lines(b, 149, 150, false)[1]
local r3 = sl.read({ bufnr = b, start = 150, ['end'] = 150, annotate = true, session = 'peek' })
local ref150 = r3.content:match('^(%d+:%w%w%w%w)|')
local refused = sl.edit({ bufnr = b, edits = { { type = 'replace_line', ref = ref150, new_content = 'x' } } })
check(refused and refused.ok == false and refused.error == 'unread_range', 'the guard refuses an unread line: ' .. tostring(refused and refused.message))
check(api.nvim_buf_get_lines(b, 149, 150, false)[1] == far, 'a refused edit leaves the buffer as it was')

-- A stale applyEdit is refused (Neovim's own handler would answer applied = true).
local uri = vim.uri_from_bufnr(b)
local stale = client.handlers['workspace/applyEdit'](nil, { edit = { documentChanges = { {
  textDocument = { uri = uri, version = 1 },
  edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = 'x' } },
} } } }, { client_id = client.id })
check(stale.applied == false and api.nvim_buf_get_lines(b, 0, 1, false)[1] == '# edited by the agent 20',
  'an applyEdit for an old buffer version is refused whole: ' .. tostring(stale.failureReason))

-- Commands.
vim.cmd('SightlineLedger')
local ledger_buf
check(wait(3000, function()
  local n = vim.fn.bufnr('sightline://ledger')
  if n == -1 then return false end
  local text = table.concat(api.nvim_buf_get_lines(n, 0, -1, false), '\n')
  ledger_buf = n
  return text:find('demo.py  partial_read  167 lines', 1, true) ~= nil
end), ':SightlineLedger shows the ledger of the buffer')
vim.cmd('close')
api.nvim_set_current_buf(b)

check(#sl.marks(b) > 0, 'coverage marks before toggling')
vim.cmd('SightlineToggle')
check(#sl.marks(b) == 0, ':SightlineToggle hides the marks')
vim.cmd('SightlineToggle')
check(#sl.marks(b) > 0, ':SightlineToggle shows them again')

-- The code lens runs sightline.showLedger.
local lens
check(wait(5000, function()
  local lenses = {}
  if vim.fn.has('nvim-0.12') == 1 then
    for _, r in ipairs(vim.lsp.codelens.get({ bufnr = b })) do table.insert(lenses, r.lens) end
  else
    lenses = vim.lsp.codelens.get(b)
  end
  for _, l in ipairs(lenses) do
    if l.command and l.command.command == 'sightline.showLedger' then lens = l return true end
  end
end), 'code lens with the sightline.showLedger command')
check(lens.command.title:match('^Agent read %d+/167 lines') ~= nil and lens.command.arguments[1] == uri, 'lens title and uri: ' .. lens.command.title)
vim.cmd('bwipeout ' .. ledger_buf)
api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
check(wait(3000, function()
  local n = vim.fn.bufnr('sightline://ledger')
  if n == -1 then return false end
  local text = table.concat(api.nvim_buf_get_lines(n, 0, -1, false), '\n')
  return text:find('demo.py  partial_read', 1, true) ~= nil
end), 'running the code lens opens the ledger')
vim.cmd('close')
api.nvim_set_current_buf(b)

vim.cmd('SightlineSession other')
check(sl.session() == 'other', ':SightlineSession sets the session')
check(wait(3000, function() return #sl.marks(b) == 0 end), 'the other session has read nothing: no marks')
local lo = sl.ledger({ bufnr = b })
check(lo and lo.session == 'other' and lo.documents[1].state == 'never_read', 'the API defaults to the session set')
vim.cmd('SightlineSession default')
check(wait(3000, function() return #sl.marks(b) > 0 end), 'back to the default session: its marks return')

vim.cmd('SightlineReset')
local lr = sl.ledger({})
check(lr and #lr.documents == 0, ':SightlineReset forgets the session: ' .. vim.inspect(lr and #lr.documents))
check(wait(3000, function() return #sl.marks(b) == 0 end), 'no marks after reset')

-- Following the most recently active session: Claude Code's hook (the real
-- `sightline hook claude` process, through the bridge) records a Read of
-- lines 1-3 in its own session; the editor follows it and draws them.
vim.cmd('SightlineSession follow')
check(sl.following(), ':SightlineSession follow turns following on')
local shown = api.nvim_buf_get_lines(b, 0, 3, false)
local event = vim.fn.json_encode({
  session_id = 't1', cwd = ws, hook_event_name = 'PostToolUse', tool_name = 'Read',
  tool_input = { file_path = ws .. '/demo.py' },
  tool_response = { type = 'text', file = { filePath = ws .. '/demo.py', content = table.concat(shown, '\n'), numLines = 3, startLine = 1, totalLines = api.nvim_buf_line_count(b) } },
})
-- CLAUDE_PROJECT_DIR: Claude Code gives it to every hook; it fixes the workspace.
local out = vim.fn.system({ 'env', 'SIGHTLINE_STATE_DIR=' .. state_dir, 'CLAUDE_PROJECT_DIR=' .. ws, bin, 'hook', 'claude' }, event)
check(vim.v.shell_error == 0, 'the hook ran: ' .. out)
check(wait(5000, function() return sl.session() == 'claude-t1' end), 'the editor follows the hook session: ' .. tostring(sl.session()))
check(wait(5000, function() return #sl.marks(b) == 3 end), 'its 3 read lines are drawn: ' .. #sl.marks(b))
-- Another session acts: the editor follows it, and draws only its reads.
check(sl.read({ bufnr = b, start = 10, ['end'] = 14, session = 'codex-t2' }), 'a read by another session')
check(wait(5000, function() return sl.session() == 'codex-t2' and #sl.marks(b) == 5 end), 'the editor follows the next session: ' .. tostring(sl.session()) .. ' ' .. #sl.marks(b))
local ss = sl.sessions()
check(ss and ss.sessions[1].session == 'codex-t2' and ss.sessions[2].session == 'claude-t1', 'sessions, most recently active first: ' .. vim.inspect(ss and ss.sessions))
vim.cmd('SightlineSession default')
check(not sl.following() and sl.session() == 'default', 'picking a session stops following')
check(wait(3000, function() return #sl.marks(b) == 0 end), 'the default session (reset) draws nothing')

-- The agent plugin adapters, called as the plugins call them.
local cc = require('harness.codecompanion')
cc.load({ session = 'cc' })
local cfg = cc.config.interactions.chat.tools
-- The tools are tools.json's (the operation table's), the same as the MCP tools.
local listed = vim.json.decode(table.concat(vim.fn.readfile(here .. '/tools.json'), '\n')).tools
check(#listed >= 9 and #require('sightline.tools').list() == #listed, 'tools.json lists the tools, all offered here: ' .. #listed)
check(cfg.groups.sightline and #cfg.groups.sightline.tools == #listed, 'codecompanion: the sightline group holds every tool: ' .. #cfg.groups.sightline.tools)
for _, t in ipairs(listed) do
  local cc_tool = cfg[t.name] and cfg[t.name].callback()
  if not (cc_tool and cc_tool.schema['function'].description == t.description and vim.deep_equal(cc_tool.schema['function'].parameters, t.inputSchema)) then
    fail('codecompanion: ' .. t.name .. ' is not tools.json\'s')
  end
end
local out
cc.call('sightline_read', vim.json.encode({ path = 'demo.py', start = 49, ['end'] = 56 }), function(o, status) out = { o, status } end)
check(wait(5000, function() return out ~= nil end) and out[2] == 'success', 'codecompanion: sightline_read succeeds')
check(out[1].for_llm:find('51:524g|class scheduler:', 1, true) ~= nil, 'codecompanion: the model reads hashlines')
check(out[1].for_user:find('sightline_read', 1, true) ~= nil, 'codecompanion: the user sees a summary')
out = nil
cc.call('sightline_edit', vim.json.encode({ path = 'demo.py', edits = { { type = 'replace_line', ref = '51:524g', new_content = 'class scheduler:  # cc' } }, file_hash = vim.NIL }),
  function(o, status) out = { o, status } end)
check(wait(5000, function() return out ~= nil end) and out[2] == 'success', 'codecompanion: sightline_edit succeeds: ' .. tostring(out and out[1].for_llm))
check(api.nvim_buf_get_lines(b, 50, 51, false)[1] == 'class scheduler:  # cc', 'codecompanion: the edit is in the buffer')
check(out[1].for_llm:find('Lines %d+%-%d+ now %(fresh refs') ~= nil, 'codecompanion: the answer shows the window with fresh refs')
out = nil
cc.call('sightline_edit', vim.json.encode({ path = 'demo.py', edits = { { type = 'delete_line', ref = ref150 } } }), function(o, status) out = { o, status } end)
check(wait(5000, function() return out ~= nil end) and out[2] == 'error' and out[1].for_llm:find('unread_range', 1, true),
  'codecompanion: an unread line is refused as an error the model reads: ' .. tostring(out and out[1].for_llm))
out = nil
cc.call('sightline_ledger', '', function(o, status) out = { o, status } end)
check(wait(5000, function() return out ~= nil end) and out[1].for_llm:find('demo.py  ', 1, true), 'codecompanion: sightline_ledger with empty arguments: ' .. tostring(out and out[1].for_llm))

local av = require('harness.avante')
local tools = av.get_tools(require('sightline.avante').tools({ session = 'av' }))
check(#tools == #listed, 'avante: every tool as a custom tool: ' .. #tools)
local ares
av.process_tool_use(tools, { name = 'sightline_read', input = vim.json.decode('{"path":"demo.py","start":53,"end":56}') },
  function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('53:dZcf|', 1, true), 'avante: sightline_read answers through on_complete')
local ref53 = ares[1]:match('(53:%w%w%w%w)|')
ares = nil
av.process_tool_use(tools, { name = 'sightline_edit', input = { path = 'demo.py', edits = { { type = 'insert_after', ref = ref53, new_content = '        # avante' } } } },
  function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and not ares[2], 'avante: sightline_edit succeeds: ' .. tostring(ares and (ares[2] or ares[1])))
check(api.nvim_buf_get_lines(b, 53, 54, false)[1] == '        # avante', 'avante: the edit is in the buffer')
ares = nil
av.process_tool_use(tools, { name = 'sightline_write', input = { path = 'demo.py', mode = 'edit', old_text = 'import heapq', content = 'import heapq  # x' } },
  function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] == nil and ares[2]:find('unread_range', 1, true),
  'avante: a write to unread lines is an error the model reads: ' .. tostring(ares and ares[2]))
ares = nil
av.process_tool_use(tools, { name = 'sightline_apply_blocks', input = { text = 'new.txt\n<<<< EDIT\n==== REPLACE\nhello\n>>>> EDIT END\n' } },
  function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('[applied] new.txt', 1, true), 'avante: sightline_apply_blocks creates a file: ' .. tostring(ares and (ares[1] or ares[2])))
-- apply_patch, offered like the others; its answer is the server's text.
ares = nil
av.process_tool_use(tools, { name = 'sightline_apply_patch', input = { patch = '--- a/new.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-hello\n+hello, patched\n' } },
  function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('[applied] new.txt', 1, true), 'avante: sightline_apply_patch patches it: ' .. tostring(ares and (ares[1] or ares[2])))
-- By symbol: the outline names a file's declarations (their signature
-- lines read), a symbol query finds them across the workspace, a read by
-- symbol shows one whole, and replace_symbol changes it through the guard.
vim.fn.writefile({ 'class Clock:', '    """A clock."""', '', '    def tick(self, n):', '        return n + 1', '',
  '    def reset(self):', '        pass', '' }, ws .. '/clock.py')
ares = nil
av.process_tool_use(tools, { name = 'sightline_outline', input = { path = 'clock.py' } }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('  method Clock%.tick  lines 4%-5  4:%w%w%w%w|    def tick%(self, n%):'),
  'avante: sightline_outline lists the declarations with their signature lines: ' .. tostring(ares and (ares[1] or ares[2])))
ares = nil
av.process_tool_use(tools, { name = 'sightline_symbols', input = { query = 'tick' } }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('clock.py#Clock.tick  method  lines 4-5', 1, true),
  'avante: sightline_symbols finds a method: ' .. tostring(ares and (ares[1] or ares[2])))
local tick = { path = 'clock.py', edits = { { type = 'replace_symbol', symbol = 'Clock.tick', new_content = '    def tick(self, n):\n        return n + 2' } } }
ares = nil
av.process_tool_use(tools, { name = 'sightline_edit', input = tick }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[2] and ares[2]:find('unread_range', 1, true),
  'avante: replace_symbol of a declaration not read whole is refused: ' .. tostring(ares and (ares[1] or ares[2])))
ares = nil
av.process_tool_use(tools, { name = 'sightline_read', input = { path = 'clock.py', symbol = 'reset' } }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('7:%w%w%w%w|    def reset%(self%):') and not ares[1]:find('tick', 1, true),
  'avante: sightline_read by symbol shows the declaration alone: ' .. tostring(ares and (ares[1] or ares[2])))
ares = nil
av.process_tool_use(tools, { name = 'sightline_edit', input = tick }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('Applied 1 edit', 1, true)
  and vim.fn.readfile(ws .. '/clock.py')[5] == '        return n + 2',
  'avante: replace_symbol lands once the refusal handed the lines over: ' .. tostring(ares and (ares[1] or ares[2])))
-- Arguments as models write them (a line number in a string) are read as the schema says.
ares = nil
av.process_tool_use(tools, { name = 'sightline_read', input = { path = 'new.txt', start = '1' } }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[1] and ares[1]:find('1:%w%w%w%w|hello, patched'), 'avante: a line number in a string: ' .. tostring(ares and (ares[1] or ares[2])))
ares = nil
av.process_tool_use(tools, { name = 'sightline_read', input = { path = 'new.txt', start = 'one' } }, function(r, e) ares = { r, e } end)
check(wait(5000, function() return ares ~= nil end) and ares[2] and ares[2]:find('invalid arguments for sightline_read', 1, true), 'avante: unreadable arguments are an error the model reads: ' .. tostring(ares and (ares[1] or ares[2])))

-- The bridge: a terminal agent's CLI reaches this editor's server through
-- its socket. Its read sees the unsaved buffer; its edit lands in the buffer
-- through workspace/applyEdit and leaves the disk alone. (jobstart, not
-- system(): Neovim must keep serving the server's applyEdit meanwhile.)
local function cli(args, stdin)
  local out, code = {}, nil
  local job = vim.fn.jobstart(vim.list_extend({ bin }, args), {
    cwd = ws, env = { SIGHTLINE_STATE_DIR = state_dir },
    stdout_buffered = true, stderr_buffered = true,
    on_stdout = function(_, data) vim.list_extend(out, data) end,
    on_stderr = function(_, data) vim.list_extend(out, data) end,
    on_exit = function(_, c) code = c end,
  })
  if stdin then vim.fn.chansend(job, stdin) end
  vim.fn.chanclose(job, 'stdin')
  wait(10000, function() return code ~= nil end)
  return table.concat(out, '\n'), code
end
local disk_now = table.concat(vim.fn.readfile(ws .. '/demo.py', 'b'), '\n')
local cout, ccode = cli({ 'read', 'demo.py:1-3' })
check(ccode == 0 and cout:find('# edited by the agent 20', 1, true), 'a CLI read through the bridge sees the unsaved buffer: ' .. cout)
local cref = cout:match('\n?(2:%w%w%w%w)|')
local before2 = api.nvim_buf_get_lines(b, 1, 2, false)[1]
cout, ccode = cli({ 'edit', 'demo.py', '--edits', '-' }, '[{"type":"replace_line","ref":"' .. tostring(cref) .. '","new_content":"# edited from the terminal"}]')
check(ccode == 0 and api.nvim_buf_get_lines(b, 1, 2, false)[1] == '# edited from the terminal',
  'a CLI edit through the bridge lands in the buffer (line 2 was ' .. tostring(before2) .. '): ' .. cout)
check(table.concat(vim.fn.readfile(ws .. '/demo.py', 'b'), '\n') == disk_now, 'the CLI edit left the disk alone')

-- Shutdown: the server exits 0.
if vim.fn.has('nvim-0.11') == 1 then client:stop() else vim.lsp.stop_client(client.id) end
check(wait(5000, function() return sl._state.exits[client.id] ~= nil end), 'server stopped')
check(sl._state.exits[client.id] == 0, 'exit code 0, got ' .. tostring(sl._state.exits[client.id]))
end, debug.traceback)
if not ok_run then fail(tostring(err_run)) end
vim.cmd('qall!')
