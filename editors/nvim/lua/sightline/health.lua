-- :checkhealth sightline — the binary, its version, the running servers, the
-- settings and the bridge socket. Neovim 0.7 reports through
-- require('health').report_*, 0.8-0.9 through vim.health.report_*, 0.10+
-- through vim.health.start/ok/…: the first that exists is used.
local M = {}

local function reporter()
  local h = vim.health
  if h == nil or (h.start == nil and h.report_start == nil) then h = require('health') end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- The sightline clients running now, whoever started them (setup() or
-- vim.lsp.enable('sightline')).
local function clients()
  if vim.lsp.get_clients then return vim.lsp.get_clients({ name = 'sightline' }) end
  local out = {}
  for _, c in ipairs(vim.lsp.get_active_clients()) do
    if c.name == 'sightline' then table.insert(out, c) end
  end
  return out
end

function M.check()
  local r = reporter()
  local sl = require('sightline')
  local config = sl.config()

  r.start('sightline: binary')
  local cmd = config.cmd
  if type(cmd) == 'string' then cmd = { cmd } end
  local bin = cmd[1]
  if vim.fn.executable(bin) ~= 1 then
    r.error(string.format('%s is not executable', bin), {
      'Install it: go install github.com/sightline-lsp/sightline/cmd/sightline@latest, or a release archive',
      "or name it in setup({ cmd = { '/path/to/sightline', 'serve' } })",
    })
    return
  end
  r.ok('found: ' .. vim.fn.exepath(bin))
  local out = vim.fn.system({ bin, 'version' })
  if vim.v.shell_error ~= 0 then
    r.error(string.format('`%s version` failed (exit %d): %s', bin, vim.v.shell_error, vim.trim(out)))
  else
    r.ok('version: ' .. vim.trim(out) .. ' (plugin ' .. sl.version .. ')')
  end

  r.start('sightline: servers')
  local running = clients()
  if #running == 0 then
    r.info('no server running: open a file inside a git repository (or call setup())')
  end
  for _, c in ipairs(running) do
    local root = c.config.root_dir or '?'
    if c.is_stopped and (vim.fn.has('nvim-0.11') == 1 and c:is_stopped() or vim.fn.has('nvim-0.11') == 0 and c.is_stopped()) then
      r.error(string.format('client %d (%s) has stopped', c.id, root))
    elseif not c.initialized then
      r.warn(string.format('client %d (%s) is not initialized yet', c.id, root))
    else
      local bufnr = next(c.attached_buffers or {}) or 0
      local res, err
      if vim.fn.has('nvim-0.11') == 1 then
        res, err = c:request_sync('sightline/stats', vim.empty_dict(), 3000, bufnr)
      else
        res, err = c.request_sync('sightline/stats', vim.empty_dict(), 3000, bufnr)
      end
      if res and not res.err then
        r.ok(string.format('client %d answers, workspace %s', c.id, root))
      else
        r.error(string.format('client %d (%s) does not answer sightline/stats: %s', c.id, root,
          tostring(err or (res and res.err and (res.err.message or vim.inspect(res.err))))))
      end
    end
  end

  r.start('sightline: settings')
  r.info('session: ' .. tostring(config.session))
  r.info('settings sent to the server: ' .. vim.fn.json_encode(sl.settings()))
  local guard = (config.settings or {}).guard
  if guard ~= nil and guard ~= 'enforce' and guard ~= 'warn' and guard ~= 'off' then
    r.warn('settings.guard is ' .. vim.inspect(guard) .. '; it must be enforce, warn or off')
  end

  r.start('sightline: agent tools')
  local tok, list = pcall(function() return require('sightline.tools').list() end)
  if tok then
    local names = {}
    for _, t in ipairs(list) do table.insert(names, t.name) end
    r.ok(string.format('%d agent tools (tools.json): %s', #names, table.concat(names, ', ')))
  else
    r.error('the agent tools cannot be read: ' .. tostring(list))
  end

  r.start('sightline: bridge socket')
  local root = sl.find_root(vim.fn.getcwd())
  if not root then
    r.info('the current directory is not inside a git repository: no bridge to look for')
    return
  end
  local status = vim.fn.system({ bin, 'bridge', '--json' })
  local ok, decoded = pcall(vim.fn.json_decode, status)
  if vim.v.shell_error ~= 0 or not ok or type(decoded) ~= 'table' then
    r.warn('`' .. bin .. ' bridge --json` gave no answer: ' .. vim.trim(status))
    return
  end
  r.info('socket folder: ' .. tostring(decoded.dir))
  if decoded.warning and decoded.warning ~= '' then r.warn(decoded.warning) end
  if #(decoded.servers or {}) == 0 then
    r.info('no server listens for ' .. root .. ': the CLI and MCP work on the disk')
  end
  for _, s in ipairs(decoded.servers or {}) do
    r.ok(string.format('server pid %s listens on %s', tostring(s.pid), tostring(s.socket)))
  end
end

return M
