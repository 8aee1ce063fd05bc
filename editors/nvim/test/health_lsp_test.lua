-- :checkhealth sightline and lsp/sightline.lua in a real, headless Neovim,
-- against the built server. Run by editors/nvim/plugin_test.go with
-- SIGHTLINE_BIN, WORKSPACE and STATE_DIR set; the current directory is the
-- workspace. On Neovim 0.11+ lsp/sightline.lua is used through
-- vim.lsp.enable('sightline'); before 0.11 (no vim.lsp.enable) the
-- configuration it returns is started with vim.lsp.start_client, which
-- checks the same table. Every wait is bounded; the first failed check
-- exits 1.
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/test/[^/]*$')
vim.opt.rtp:prepend(here)

local bin, ws = os.getenv('SIGHTLINE_BIN'), os.getenv('WORKSPACE')
local api = vim.api

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end
local function check(cond, msg)
  if not cond then fail(msg) end
  io.stdout:write('ok  ' .. msg .. '\n')
end

local function health_text()
  vim.cmd('checkhealth sightline')
  local text = table.concat(api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('bwipeout!')
  return text
end

local ok_run, err_run = xpcall(function()
  -- lsp/sightline.lua stands alone, as nvim-lspconfig's configurations do:
  -- a plain table that requires nothing.
  local files = api.nvim_get_runtime_file('lsp/sightline.lua', false)
  check(#files == 1, 'lsp/sightline.lua is on the runtimepath')
  local cfg = dofile(files[1])
  check(package.loaded['sightline'] == nil, 'lsp/sightline.lua requires not the plugin')
  check(type(cfg) == 'table' and cfg.cmd[1] == 'sightline' and cfg.cmd[2] == 'serve', 'its cmd runs sightline serve')
  check(vim.tbl_contains(cfg.root_markers, '.git') and vim.tbl_contains(cfg.root_markers, '.sightline.json'), 'its root markers are the server\'s')
  check(type(cfg.root_dir) == 'function', 'its root_dir is a function')

  local sl = require('sightline')

  -- A binary that is not there: said once when a file opens, not silent.
  local told = {}
  local notify = vim.notify
  vim.notify = function(msg, level) table.insert(told, { msg = msg, level = level }) end
  sl.setup({ cmd = { 'sightline-not-installed-here', 'serve' } })
  vim.cmd('edit ' .. ws .. '/demo.py')
  vim.cmd('edit ' .. ws .. '/.git/HEAD')
  vim.cmd('bwipeout! ' .. ws .. '/demo.py')
  vim.cmd('bwipeout!')
  vim.notify = notify
  check(#told == 1 and told[1].msg:find('sightline%-not%-installed%-here is not executable') and told[1].level == vim.log.levels.WARN,
    'a missing binary is told once: ' .. vim.inspect(told))

  -- Health with a binary that is not there: an error saying how to fix it.
  local text = health_text()
  check(text:find('sightline%-not%-installed%-here is not executable') ~= nil, 'checkhealth: a missing binary is an error')
  check(text:find('go install github.com/sightline%-lsp/sightline') ~= nil, 'checkhealth: says how to install it')

  -- lsp/sightline.lua: the configuration vim.lsp.enable('sightline') reads.
  -- Its root_dir is tried while the binary is still missing, so that the
  -- buffers opened for it start no server of the plugin's own.
  vim.cmd('edit ' .. ws .. '/demo.py')
  local b = api.nvim_get_current_buf()
  vim.cmd('edit ' .. ws .. '/.git/HEAD')
  local githead = api.nvim_get_current_buf()
  vim.cmd('buffer ' .. b)
  local got
  cfg.root_dir(b, function(r) got = r end)
  check(got == ws, 'root_dir gives a workspace file its root: ' .. tostring(got))
  got = nil
  cfg.root_dir(githead, function(r) got = r end)
  check(got == nil, 'root_dir gives a file inside .git none')

  sl.setup({ cmd = { bin, 'serve', '--state-dir', os.getenv('STATE_DIR') } })
  local id
  if vim.lsp.enable then
    -- setup lays the plugin's configuration (its cmd) over the file's.
    check(vim.lsp.config.sightline.cmd[1] == bin, 'its cmd is setup\'s')
    vim.lsp.enable('sightline')
    vim.cmd('edit')
  else
    -- What vim.lsp.config does on 0.11: the plugin's configuration laid
    -- over the file's.
    local c = vim.tbl_deep_extend('force', vim.deepcopy(cfg), sl.lsp_config())
    check(c.cmd[1] == bin, 'its cmd is setup\'s')
    c.root_dir = ws
    id = vim.lsp.start_client(c)
    vim.lsp.buf_attach_client(b, id)
  end
  local client
  check(vim.wait(10000, function()
    for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients({ name = 'sightline' }) or vim.lsp.get_active_clients()) do
      if c.name == 'sightline' and c.initialized and vim.lsp.buf_is_attached(b, c.id) then client = c return true end
    end
  end, 10), 'the client of lsp/sightline.lua starts and attaches')
  check(client.config.root_dir == ws, 'its root is the workspace')

  -- The plugin's API uses that client, not a second server.
  local res, err = sl.read({ bufnr = b, start = 1, ['end'] = 3 })
  check(res and res.ok, 'read through the API: ' .. tostring(err))
  local n = 0
  for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients({ name = 'sightline' }) or vim.lsp.get_active_clients()) do
    if c.name == 'sightline' then n = n + 1 end
  end
  check(n == 1, 'one sightline client, adopted by the plugin: ' .. n)
  check(vim.wait(5000, function() return #sl.marks(b) == 3 end, 10), 'coverage signs drawn on the 3 lines read')

  -- Health with the server running.
  text = health_text()
  io.stdout:write(text .. '\n')
  check(text:find('found: ' .. vim.pesc(bin)) ~= nil, 'checkhealth: the binary found')
  check(text:find('%d+ agent tools %(tools.json%): sightline_read') ~= nil, 'checkhealth: the agent tools read from tools.json')
  check(text:find('version: sightline ') ~= nil, 'checkhealth: its version')
  check(text:find('client %d+ answers, workspace ' .. vim.pesc(ws)) ~= nil, 'checkhealth: the server answers')
  check(text:find('session: default') ~= nil, 'checkhealth: the settings')
  check(text:find('server pid %d+ listens on ') ~= nil, 'checkhealth: the bridge socket')
  check(not text:find('ERROR'), 'checkhealth: no error')
end, debug.traceback)
if not ok_run then fail(err_run) end
io.stdout:write('ok  exit code 0\n')
vim.cmd('qall!')
