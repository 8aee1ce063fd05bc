-- sightline for Neovim: starts `sightline serve` per workspace (the folder
-- holding .git above a buffer's file), draws the agent's read coverage, and
-- gives agent plugins a Lua API over the sightline/* requests.
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client)
-- through current releases; newer APIs are used only when present.
local M = {}

local api, lsp = vim.api, vim.lsp
local uv = vim.uv or vim.loop

M.ns = api.nvim_create_namespace('sightline')
M.version = '0.1.0'

local defaults = {
  cmd = { 'sightline', 'serve' },
  session = 'default',
  follow_session = false, -- show the most recently active session instead of `session`
  agent = nil,
  settings = {},
  highlights = true,
  timeout = 12000, -- ms a synchronous API call waits (the server's applyTimeoutMs is 10 s)
  root_markers = { '.git' },
  signs = { read = '▎', authored = '▎', stale = '▎' },
  on_attach = nil,
}

local config = vim.deepcopy(defaults)
local state = {
  clients = {}, -- root -> client id
  waiting = {}, -- client id -> callbacks waiting for initialization
  coverage = {}, -- uri -> the coverage the sightline/coverage notifications left
  coverage_changes = 0, -- notifications that were changes (for the tests)
  followed = nil, -- the session the server follows (follow_session), as it last said
  lens_timers = {}, -- bufnr -> true while a refresh is scheduled
  marks = {}, -- bufnr -> {extmark id -> highlight group}
  exits = {}, -- client id -> exit code of its server
  enabled = true,
  setup_done = false,
}

local function has(v) return vim.fn.has('nvim-' .. v) == 1 end

-- Client methods: 0.11 made them methods (client:request); 0.7 has fields.
local function client_request(client, method, params, handler, bufnr)
  if has('0.11') then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end
local function client_notify(client, method, params)
  if has('0.11') then return client:notify(method, params) end
  return client.notify(method, params)
end

local function get_clients()
  if lsp.get_clients then return lsp.get_clients({ name = 'sightline' }) end
  local out = {}
  for _, c in ipairs(lsp.get_active_clients()) do
    if c.name == 'sightline' then table.insert(out, c) end
  end
  return out
end

local function nonempty(t)
  if t == nil or next(t) == nil then return vim.empty_dict() end
  return t
end

--- The settings sent to the server: setup's `settings` with `session` and
--- `followSession`.
function M.settings()
  local s = vim.deepcopy(config.settings or {})
  s.session = config.session
  s.followSession = config.follow_session and true or false
  return s
end

--- The session whose coverage is drawn: the one the server follows, else
--- the configured one.
local function shown_session()
  return (config.follow_session and state.followed) or config.session
end

---------------------------------------------------------------------------
-- Paths, roots, buffers
---------------------------------------------------------------------------

local function is_abs(p) return p:sub(1, 1) == '/' or p:match('^%a:[/\\]') ~= nil end

local function normalize(p)
  p = vim.fn.simplify(p)
  if #p > 1 then p = p:gsub('/+$', '') end
  return p
end

local function dirname(p) return vim.fn.fnamemodify(p, ':h') end

--- The workspace root of a path: the nearest folder at or above it holding
--- one of config.root_markers (.git), or nil.
function M.find_root(path)
  local dir = normalize(path)
  local st = uv.fs_stat(dir)
  if not st or st.type ~= 'directory' then dir = dirname(dir) end
  while true do
    for _, m in ipairs(config.root_markers) do
      if uv.fs_stat(dir .. '/' .. m) then return dir end
    end
    local parent = dirname(dir)
    if parent == dir then return nil end
    dir = parent
  end
end

-- The absolute path of a file buffer, or nil (scratch, help, terminal, fugitive:// …).
local function buf_path(bufnr)
  if not api.nvim_buf_is_valid(bufnr) then return nil end
  if vim.bo[bufnr].buftype ~= '' then return nil end
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then return nil end
  return normalize(vim.fn.fnamemodify(name, ':p'))
end

local function inside(path, root)
  if path:sub(1, #root + 1) ~= root .. '/' then return false end
  return not (path .. '/'):find('/.git/', #root, true)
end

local function bufnr_for_uri(uri)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and buf_path(b) and vim.uri_from_bufnr(b) == uri then return b end
  end
  return nil
end

-- The workspace a call without a document is about: that of the current
-- directory, else of the current buffer, else the one with a running server.
local function base_root()
  local root = M.find_root(vim.fn.getcwd())
  local cur = buf_path(api.nvim_get_current_buf())
  if not root and cur then root = M.find_root(cur) end
  if not root and #vim.tbl_keys(state.clients) == 1 then root = next(state.clients) end
  return root
end

-- Resolve a path as the model or user wrote it: absolute, or relative to the
-- workspace root (answers name files that way too), else to the current
-- directory.
local function abs_path(p)
  if p:match('^file://') then return normalize(vim.uri_to_fname(p)) end
  if p:sub(1, 1) == '~' or p:sub(1, 1) == '$' then p = vim.fn.expand(p) end
  if is_abs(p) then return normalize(p) end
  return normalize((base_root() or vim.fn.getcwd()) .. '/' .. p)
end

-- target resolves {bufnr=} / {path=} / {1=bufnr or path} to {path, uri, bufnr, root}.
local function target(o, need)
  local b, p = o.bufnr, o.path
  if b == nil and p == nil then
    if type(o[1]) == 'number' then b = o[1] elseif type(o[1]) == 'string' then p = o[1] end
  end
  local path, bufnr
  if b ~= nil then
    bufnr = b == 0 and api.nvim_get_current_buf() or b
    path = buf_path(bufnr)
    if not path then return nil, string.format('buffer %s is not a file buffer', tostring(b)) end
  elseif p ~= nil and p ~= vim.NIL and p ~= '' then
    path = abs_path(p)
    local n = vim.fn.bufnr(path)
    if n ~= -1 and api.nvim_buf_is_loaded(n) and buf_path(n) == path then bufnr = n end
  elseif need then
    return nil, 'a path (or bufnr) is required'
  else
    -- No document: the workspace of the current directory, else of the
    -- current buffer, else the one workspace with a running server.
    local root = base_root()
    if not root then return nil, 'the current directory ' .. vim.fn.getcwd() .. ' is not inside a git repository' end
    return { root = root }
  end
  local root = M.find_root(path)
  if not root then
    return nil, path .. ' is not inside a git repository (sightline serves files under a folder holding .git)'
  end
  local uri = bufnr and vim.uri_from_bufnr(bufnr) or vim.uri_from_fname(path)
  return { path = path, uri = uri, bufnr = bufnr, root = root }
end

---------------------------------------------------------------------------
-- Coverage highlights and code lenses
---------------------------------------------------------------------------

local kinds = {
  { key = 'read', group = 'SightlineRead', priority = 10 },
  { key = 'authored', group = 'SightlineAuthored', priority = 11 },
  { key = 'stale', group = 'SightlineStale', priority = 12 },
}

local function define_highlights()
  local links = { SightlineRead = 'DiffAdd', SightlineAuthored = 'DiffChange', SightlineStale = 'DiffDelete' }
  for group, to in pairs(links) do
    api.nvim_set_hl(0, group, { link = to, default = true })
  end
end

local function draw(bufnr)
  if not api.nvim_buf_is_valid(bufnr) then return end
  api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  local groups = {}
  state.marks[bufnr] = groups
  if not (state.enabled and config.highlights) then return end
  local cov = state.coverage[vim.uri_from_bufnr(bufnr)]
  if not cov or cov.session ~= shown_session() then return end
  local n = api.nvim_buf_line_count(bufnr)
  for _, k in ipairs(kinds) do
    local ranges = cov[k.key]
    if type(ranges) == 'table' then
      for _, r in ipairs(ranges) do
        for l = r.start, math.min(r['end'], n) do
          local id = api.nvim_buf_set_extmark(bufnr, M.ns, l - 1, 0, {
            sign_text = config.signs[k.key],
            sign_hl_group = k.group,
            number_hl_group = k.group,
            priority = k.priority,
          })
          groups[id] = k.group
        end
      end
    end
  end
end

--- The coverage marks of a buffer as they are now (they move with the text):
--- a list of {line = 1-based, group = 'SightlineRead'|...}. Neovim 0.7 does
--- not report an extmark's sign group, so it is kept here by mark id.
function M.marks(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local groups = state.marks[bufnr] or {}
  local out = {}
  for _, m in ipairs(api.nvim_buf_get_extmarks(bufnr, M.ns, 0, -1, { details = true })) do
    local g = (m[4] and m[4].sign_hl_group) or groups[m[1]]
    table.insert(out, { line = m[2] + 1, group = g })
  end
  return out
end

local function redraw_all()
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) then draw(b) end
  end
end

local function client_for_buf(bufnr)
  for _, c in ipairs(get_clients()) do
    if lsp.buf_is_attached(bufnr, c.id) then return c end
  end
end

-- Refresh the sightline code lens of a buffer (coalesced: coverage arrives
-- on every change).
local function refresh_lens(bufnr)
  if state.lens_timers[bufnr] then return end
  state.lens_timers[bufnr] = true
  vim.defer_fn(function()
    state.lens_timers[bufnr] = nil
    if not api.nvim_buf_is_valid(bufnr) then return end
    local client = client_for_buf(bufnr)
    if not client then return end
    if has('0.12') then
      -- 0.12 keeps lenses per buffer once enabled, and refetches a client's
      -- lenses on workspace/codeLens/refresh.
      if not lsp.codelens.is_enabled({ bufnr = bufnr }) then lsp.codelens.enable(true, { bufnr = bufnr }) end
      pcall(lsp.codelens.on_refresh, nil, nil, { client_id = client.id })
    elseif has('0.10') then
      pcall(lsp.codelens.refresh, { bufnr = bufnr })
    elseif bufnr == api.nvim_get_current_buf() then
      pcall(lsp.codelens.refresh)
    else
      client_request(client, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } },
        function(err, result, ctx) lsp.codelens.on_codelens(err, result, ctx) end, bufnr)
    end
  end, 30)
end

local function on_session(_, params)
  if type(params) ~= 'table' or type(params.session) ~= 'string' then return end
  state.followed = params.session
  redraw_all()
end

--- The coverage a sightline/coverage notification leaves: a whole one as it
--- is; a change (the plugin asks for them, so that what the server sends
--- grows with the change, not with the session): the lines in `changed`
--- take its ranges, the others keep those of prev.
local function apply_coverage(prev, params)
  local out = {}
  for k, v in pairs(params) do out[k] = v end
  out.changed = nil
  local w = params.changed
  if type(w) ~= 'table' then return out end
  local function merge(old, within)
    local list = {}
    for _, r in ipairs(type(old) == 'table' and old or {}) do
      if r['end'] < w.start or r.start > w['end'] then
        table.insert(list, { start = r.start, ['end'] = r['end'] })
      else
        if r.start < w.start then table.insert(list, { start = r.start, ['end'] = w.start - 1 }) end
        if r['end'] > w['end'] then table.insert(list, { start = w['end'] + 1, ['end'] = r['end'] }) end
      end
    end
    for _, r in ipairs(type(within) == 'table' and within or {}) do
      table.insert(list, { start = r.start, ['end'] = r['end'] })
    end
    table.sort(list, function(a, b) return a.start < b.start end)
    local joined = {}
    for _, r in ipairs(list) do
      local last = joined[#joined]
      if last and r.start <= last['end'] + 1 then
        last['end'] = math.max(last['end'], r['end'])
      else
        table.insert(joined, r)
      end
    end
    return joined
  end
  prev = prev or {}
  out.read = merge(prev.read, params.read)
  out.authored = merge(prev.authored, params.authored)
  out.stale = merge(prev.stale, params.stale)
  return out
end

local function on_coverage(_, params)
  if type(params) ~= 'table' or not params.uri then return end
  if type(params.changed) == 'table' then state.coverage_changes = state.coverage_changes + 1 end
  state.coverage[params.uri] = apply_coverage(state.coverage[params.uri], params)
  local b = bufnr_for_uri(params.uri)
  if b then
    draw(b)
    refresh_lens(b)
  end
end

---------------------------------------------------------------------------
-- Server-to-client requests
---------------------------------------------------------------------------

local function buf_version(bufnr)
  local v = lsp.util.buf_versions and lsp.util.buf_versions[bufnr]
  if v == nil then v = api.nvim_buf_get_changedtick(bufnr) end
  return v
end

-- workspace/applyEdit, strictly: a versioned edit for a buffer that moved on
-- is refused whole (Neovim's own handler only prints "newer than edits" and
-- answers applied = true), and nothing is printed per edit.
local function on_apply_edit(_, params, ctx)
  if type(params) ~= 'table' or type(params.edit) ~= 'table' then
    return { applied = false, failureReason = 'no edit' }
  end
  for _, change in ipairs(params.edit.documentChanges or {}) do
    local td = change.textDocument
    if td and td.version ~= nil and td.version ~= vim.NIL then
      local b = bufnr_for_uri(td.uri)
      if not b then
        return { applied = false, failureReason = td.uri .. ' is not open in the editor' }
      end
      local have = buf_version(b)
      if have ~= td.version then
        return {
          applied = false,
          failureReason = string.format('the buffer is at version %d, the edit is for version %d', have, td.version),
        }
      end
    end
  end
  local client = lsp.get_client_by_id(ctx.client_id)
  local enc = client and client.offset_encoding or 'utf-16'
  local ok, err = pcall(lsp.util.apply_workspace_edit, params.edit, enc)
  if not ok then return { applied = false, failureReason = tostring(err) } end
  return { applied = true }
end

local function on_configuration(_, params)
  local out = {}
  for i, item in ipairs((params or {}).items or {}) do
    if item.section == 'sightline' then
      out[i] = M.settings()
    elseif item.section == nil or item.section == vim.NIL or item.section == '' then
      out[i] = { sightline = M.settings() }
    else
      out[i] = vim.NIL
    end
  end
  return out
end

---------------------------------------------------------------------------
-- Clients
---------------------------------------------------------------------------

local function flush_waiting(id, client, err)
  local ws = state.waiting[id]
  state.waiting[id] = nil
  for _, cb in ipairs(ws or {}) do cb(client, err) end
end

local function show_ledger_command(command, ctx)
  local uri = command.arguments and command.arguments[1]
  local bufnr = ctx and ctx.bufnr
  if type(uri) == 'string' then
    M.show_ledger({ path = uri })
  else
    M.show_ledger({ bufnr = bufnr })
  end
end

--- The client configuration of the server, without a root: what
--- lsp/sightline.lua gives vim.lsp.enable('sightline') (Neovim 0.11+), and
--- what start() completes for one workspace.
function M.lsp_config()
  define_highlights()
  local cmd = config.cmd
  if type(cmd) == 'string' then cmd = { cmd } end
  return {
    name = 'sightline',
    cmd = cmd,
    -- Coverage as changes after the first whole one (apply_coverage).
    capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(),
      { experimental = { sightline = { coverageChanges = true } } }),
    init_options = M.settings(),
    settings = { sightline = M.settings() },
    flags = { debounce_text_changes = 0 },
    handlers = {
      ['sightline/coverage'] = on_coverage,
      ['sightline/session'] = on_session,
      ['workspace/applyEdit'] = on_apply_edit,
      ['workspace/configuration'] = on_configuration,
    },
    commands = { ['sightline.showLedger'] = show_ledger_command },
    on_init = function(client)
      -- Plain Neovim 0.7 never sends didChangeConfiguration by itself.
      client_notify(client, 'workspace/didChangeConfiguration', { settings = { sightline = M.settings() } })
      local root = client.config.root_dir
      if root and not state.clients[root] then state.clients[root] = client.id end
      flush_waiting(client.id, client)
    end,
    on_attach = function(client, bufnr)
      draw(bufnr)
      refresh_lens(bufnr)
      if config.on_attach then config.on_attach(client, bufnr) end
    end,
  }
end

--- The root_dir of vim.lsp.config (0.11+): a file buffer inside a workspace
--- (not inside .git) gets the workspace's root; other buffers none.
function M.lsp_root_dir(bufnr, on_dir)
  local path = buf_path(bufnr)
  if not path then return end
  local root = M.find_root(path)
  if root and inside(path, root) then on_dir(root) end
end

-- A client of root started elsewhere (vim.lsp.enable('sightline')), adopted
-- so that the API and the commands use it rather than start another.
local function adopt(root)
  for _, c in ipairs(get_clients()) do
    if c.config.root_dir == root and not (c.is_stopped and (has('0.11') and c:is_stopped() or not has('0.11') and c.is_stopped())) then
      state.clients[root] = c.id
      return c.id
    end
  end
end

--- Start (or return) the client of a workspace root.
function M.start(root)
  local id = state.clients[root]
  if id and lsp.get_client_by_id(id) then return id end
  id = adopt(root)
  if id then return id end
  local cmd = config.cmd
  if type(cmd) == 'string' then cmd = { cmd } end
  if vim.fn.executable(cmd[1]) ~= 1 then
    local msg = string.format('sightline: %s is not executable: install it (go install github.com/sightline-lsp/sightline/cmd/sightline@latest) or set cmd in setup; :checkhealth sightline', cmd[1])
    if not state.missing_told then
      -- Once: every buffer opened would ask again.
      state.missing_told = true
      vim.notify(msg, vim.log.levels.WARN)
    end
    return nil, msg
  end
  local new_id
  local client_config = M.lsp_config()
  client_config.cmd = cmd
  client_config.root_dir = root
  client_config.workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } }
  client_config.on_exit = function(code)
    state.exits[new_id] = code
    if state.clients[root] == new_id then state.clients[root] = nil end
    flush_waiting(new_id, nil, 'the sightline server exited (code ' .. tostring(code) .. ')')
  end
  if has('0.12') then
    -- start_client is deprecated from 0.12 on; start without attaching (the
    -- plugin attaches buffers itself) and never reuse another config's client.
    new_id = lsp.start(client_config, { attach = false, reuse_client = function() return false end })
  else
    new_id = lsp.start_client(client_config)
  end
  if not new_id then return nil, 'sightline: the server could not be started' end
  state.clients[root] = new_id
  return new_id
end

--- Attach a buffer to the client of its workspace if it is a file buffer
--- inside one. Returns the client id or nil.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local path = buf_path(bufnr)
  if not path then return nil end
  local root = M.find_root(path)
  if not root or not inside(path, root) then return nil end
  local id = M.start(root)
  if not id then return nil end
  if not lsp.buf_is_attached(bufnr, id) then lsp.buf_attach_client(bufnr, id) end
  return id
end

-- Call cb(client) once the client of root is initialized (cb(nil, err) if it
-- cannot be).
local function with_client(root, cb)
  local id, err = M.start(root)
  if not id then return cb(nil, err) end
  local client = lsp.get_client_by_id(id)
  if client and client.initialized then return cb(client) end
  state.waiting[id] = state.waiting[id] or {}
  table.insert(state.waiting[id], cb)
end

---------------------------------------------------------------------------
-- Requests: synchronous with a timeout, or asynchronous with a callback
---------------------------------------------------------------------------

local function request(root, method, params, bufnr, o)
  local timeout = o.timeout or config.timeout
  local done, res, err = false, nil, nil
  local function finish(r, e)
    if done then return end
    done, res, err = true, r, e
    if o.callback then o.callback(r, e) end
  end
  if o.callback then
    vim.defer_fn(function()
      finish(nil, string.format('%s: no answer within %d ms; nothing is known about its effect: read the lines again before editing', method, timeout))
    end, timeout)
  end
  with_client(root, function(client, cerr)
    if not client then return finish(nil, cerr) end
    local ok = client_request(client, method, params, function(rerr, result)
      if rerr then
        local msg = type(rerr) == 'table' and (rerr.message or vim.inspect(rerr)) or tostring(rerr)
        return finish(nil, method .. ': ' .. msg)
      end
      finish(result, nil)
    end, bufnr)
    if not ok then finish(nil, 'sightline: the server is not running') end
  end)
  if o.callback then return nil end
  if vim.in_fast_event() then
    done = true
    return nil, 'sightline: a synchronous call cannot wait inside a fast event; pass callback'
  end
  if not vim.wait(timeout, function() return done end, 2) then
    done = true
    return nil, string.format('%s: no answer within %d ms; nothing is known about its effect: read the lines again before editing', method, timeout)
  end
  return res, err
end

local function fail(o, err)
  if o.callback then
    vim.schedule(function() o.callback(nil, err) end)
    return nil
  end
  return nil, err
end

local function caller(o, p)
  p.session = o.session or config.session
  p.agent = o.agent or config.agent
  -- render: the answer carries its text as the server renders it for agents.
  if o.render == true then p.render = true end
  return p
end

local function absent(v) return v == nil or v == vim.NIL end

--- read{bufnr|path, start, ['end'], session, agent, annotate, budget, callback, timeout}
function M.read(o)
  o = o or {}
  local t, err = target(o, true)
  if not t then return fail(o, err) end
  local p = caller(o, { textDocument = { uri = t.uri } })
  local s, e = o.start, o['end']
  if not absent(s) or not absent(e) then
    p.range = { start = absent(s) and 1 or s, ['end'] = absent(e) and 1000000000 or e }
  end
  if not absent(o.annotate) then p.annotate = o.annotate end
  if not absent(o.budget) then p.budget = { chars = o.budget } end
  return request(t.root, 'sightline/read', p, t.bufnr, o)
end

--- edit{bufnr|path, edits, file_hash, dry_run, full_refresh, session, agent, callback, timeout}
function M.edit(o)
  o = o or {}
  local t, err = target(o, true)
  if not t then return fail(o, err) end
  local p = caller(o, { textDocument = { uri = t.uri }, edits = o.edits })
  if not absent(o.file_hash) then p.fileHash = o.file_hash end
  if o.dry_run == true then p.dryRun = true end
  if o.full_refresh == true then p.fullRefresh = true end
  return request(t.root, 'sightline/edit', p, t.bufnr, o)
end

--- apply_blocks{text, dry_run, stage, session, agent, callback, timeout}
--- (paths in the blocks are relative to the workspace root of the current
--- directory, or of bufnr/path when given)
function M.apply_blocks(o)
  o = o or {}
  local t, err = target(o, false)
  if not t then return fail(o, err) end
  local p = caller(o, { text = o.text or o[2] or '' })
  if o.dry_run == true then p.dryRun = true end
  if o.stage == true then p.stage = true end
  return request(t.root, 'sightline/applyBlocks', p, nil, o)
end

--- write{bufnr|path, mode, content, old_text, expected_version, dry_run, session, agent, callback, timeout}
function M.write(o)
  o = o or {}
  local t, err = target(o, true)
  if not t then return fail(o, err) end
  local p = caller(o, { textDocument = { uri = t.uri }, mode = o.mode, content = o.content })
  if not absent(o.old_text) then p.old_text = o.old_text end
  if not absent(o.expected_version) then p.expectedVersion = o.expected_version end
  if o.dry_run == true then p.dryRun = true end
  return request(t.root, 'sightline/write', p, t.bufnr, o)
end

--- ledger{bufnr|path, session, callback, timeout}: one document, or every
--- document of the session when neither is given.
function M.ledger(o)
  o = o or {}
  local t, err = target(o, false)
  if not t then return fail(o, err) end
  local p = caller(o, {})
  p.agent = nil
  if t.uri then p.textDocument = { uri = t.uri } end
  return request(t.root, 'sightline/ledger', p, t.bufnr, o)
end

--- tool(method, args, {session, agent, callback, timeout}): an agent tool's
--- call (tools.json): the model's arguments, as they are, to the tool's
--- sightline/* request, whose answer carries its text. The server that
--- answers is that of the workspace of args.path (made absolute, so that the
--- server reads it as the model meant it), else of the current directory.
function M.tool(method, args, o)
  o = o or {}
  args = args or {}
  local t, err
  if type(args.path) == 'string' and args.path ~= '' then
    t, err = target({ path = args.path }, true)
    if t then args.path = t.path end
  else
    t, err = target({}, false)
  end
  if not t then return fail(o, err) end
  local p = caller(o, { arguments = nonempty(args) })
  p.render = true
  return request(t.root, method, p, t.bufnr, o)
end

--- summary{bufnr|path, session, callback, timeout}
function M.summary(o)
  o = o or {}
  local t, err = target(o, true)
  if not t then return fail(o, err) end
  return request(t.root, 'sightline/summary', caller(o, { textDocument = { uri = t.uri } }), t.bufnr, o)
end

--- reset{session, callback}: the session forgets what it read and wrote (in
--- every workspace with a running server).
function M.reset(o)
  o = o or {}
  local roots = vim.tbl_keys(state.clients)
  if #roots == 0 then
    local t = target({}, false)
    if t then roots = { t.root } end
  end
  local results, errs = {}, {}
  for _, root in ipairs(roots) do
    local r, e = request(root, 'sightline/session/reset', { session = o.session or config.session }, nil, { timeout = o.timeout })
    if r then table.insert(results, r) else table.insert(errs, e) end
  end
  for uri, cov in pairs(state.coverage) do
    if cov.session == (o.session or config.session) then state.coverage[uri] = nil end
  end
  redraw_all()
  if #errs > 0 then return nil, table.concat(errs, '; ') end
  return results[1] or { ok = true, message = 'No sightline server is running.' }
end

---------------------------------------------------------------------------
-- Ledger view
---------------------------------------------------------------------------

local function ledger_buffer(lines)
  local name = 'sightline://ledger'
  local b = vim.fn.bufnr(name)
  if b == -1 or not api.nvim_buf_is_valid(b) then
    b = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(b, name)
    vim.bo[b].bufhidden = 'hide'
    vim.bo[b].filetype = 'sightline-ledger'
  end
  vim.bo[b].modifiable = true
  api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  local win = vim.fn.bufwinid(b)
  if win == -1 then
    vim.cmd('botright ' .. math.min(#lines + 1, 15) .. 'split')
    api.nvim_win_set_buf(0, b)
  else
    api.nvim_set_current_win(win)
  end
  return b
end

--- Show a ledger (of a document, or of the session) in a scratch window.
function M.show_ledger(o)
  o = o or {}
  o.callback = function(res, err)
    if not res then
      vim.notify('sightline: ' .. tostring(err), vim.log.levels.ERROR)
      return
    end
    -- The ledger as every door words it (the server's text, as `sightline ledger` prints it).
    local text = (type(res.text) == 'string' and res.text or (res.message or '')):gsub('\n$', '')
    ledger_buffer(vim.split(text, '\n', { plain = true }))
  end
  o.render = true
  return M.ledger(o)
end

---------------------------------------------------------------------------
-- Setup
---------------------------------------------------------------------------

--- Change settings at run time: sent to every running server.
function M.configure(settings)
  config.settings = vim.tbl_deep_extend('force', config.settings or {}, settings or {})
  if settings and settings.session then config.session = settings.session end
  for _, c in ipairs(get_clients()) do
    client_notify(c, 'workspace/didChangeConfiguration', { settings = { sightline = M.settings() } })
  end
end

--- The session whose coverage the editor shows (and the API's default):
--- a name, or 'follow' to show the most recently active session (an
--- agent's hook session, claude-… or codex-…, as soon as it acts).
function M.session(name)
  if name == nil or name == '' then return shown_session() end
  if name == 'follow' then
    config.follow_session = true
  else
    config.session, config.follow_session, state.followed = name, false, nil
  end
  M.configure({})
  redraw_all()
  return shown_session()
end

--- Whether the editor follows the most recently active session.
function M.following() return config.follow_session and true or false end

--- sessions{callback, timeout}: the sessions the server knows, the most
--- recently active first (sightline/sessions).
function M.sessions(o)
  o = o or {}
  local t, err = target({}, false)
  if not t then return fail(o, err) end
  return request(t.root, 'sightline/sessions', vim.empty_dict(), nil, o)
end

function M.toggle()
  state.enabled = not state.enabled
  redraw_all()
  return state.enabled
end

function M.config() return config end

local function commands()
  local function cmd(name, fn, opts) api.nvim_create_user_command(name, fn, opts or {}) end
  cmd('SightlineLedger', function(a)
    if a.args ~= '' then
      M.show_ledger({ path = a.args })
    elseif buf_path(api.nvim_get_current_buf()) then
      M.show_ledger({ bufnr = api.nvim_get_current_buf() })
    else
      M.show_ledger({})
    end
  end, { nargs = '?', complete = 'file', desc = 'Show what the agent session read of this file' })
  cmd('SightlineReset', function()
    local res, err = M.reset()
    vim.notify('sightline: ' .. (res and (res.message or 'session reset') or tostring(err)))
  end, { desc = 'Forget what the agent session read and wrote' })
  cmd('SightlineToggle', function()
    vim.notify('sightline: highlights ' .. (M.toggle() and 'on' or 'off'))
  end, { desc = 'Toggle the coverage highlights' })
  local function said()
    if config.follow_session then return 'following the latest session (now ' .. (state.followed or 'none yet') .. ')' end
    return 'session ' .. config.session
  end
  cmd('SightlineSession', function(a)
    if a.args ~= '' then
      M.session(a.args)
      vim.notify('sightline: ' .. said())
      return
    end
    -- Pick among the server's sessions (an agent's hook sessions among
    -- them), the most recently active first, or follow the latest.
    local res = M.sessions()
    local items = { 'follow' }
    for _, s in ipairs(res and res.sessions or {}) do table.insert(items, s.session) end
    vim.ui.select(items, {
      prompt = 'sightline (' .. said() .. '):',
      format_item = function(i) return i == 'follow' and 'follow the most recently active session' or i end,
    }, function(choice)
      if choice then
        M.session(choice)
        vim.notify('sightline: ' .. said())
      end
    end)
  end, { nargs = '?', desc = 'Pick the session whose ledger the editor shows, or follow the latest' })
end

--- setup{cmd, session, settings, highlights, timeout, root_markers, signs, agent, on_attach}
function M.setup(opts)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.cmd then config.cmd = opts.cmd end
  if opts and opts.settings then config.settings = opts.settings end
  define_highlights()
  lsp.commands['sightline.showLedger'] = show_ledger_command
  if vim.lsp.config then
    -- Over lsp/sightline.lua (the plain configuration): the plugin's.
    local own = M.lsp_config()
    own.root_dir = M.lsp_root_dir
    vim.lsp.config('sightline', own)
  end
  if state.setup_done then return M end
  state.setup_done = true
  commands()
  local group = api.nvim_create_augroup('sightline', { clear = true })
  api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
    group = group,
    callback = function(a) M.attach(a.buf) end,
  })
  api.nvim_create_autocmd('ColorScheme', { group = group, callback = define_highlights })
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) then M.attach(b) end
  end
  return M
end

M._state = state
M._apply_coverage = apply_coverage
M._nonempty = nonempty
return M
