-- The agent tools sightline offers, independent of any agent plugin: read
-- from tools.json (in this plugin's tree), which is generated from
-- sightline's operation table: the same names, descriptions, input schemas
-- and annotations as the MCP tools. A call sends the model's arguments as
-- they are to the tool's sightline/* request, and the answer a model reads
-- is the server's text, in the words every sightline door shows. The
-- codecompanion and avante adapters are thin shapes over these.
local M = {}

local function sl() return require('sightline') end

-- This plugin's door in tools.json.
M.door = 'neovim'

-- The plugin's folder (editors/nvim), from this file's place in it.
local function plugin_root()
  local src = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(src, ':p:h:h:h')
end

--- tools.json as decoded.
function M.file()
  if not M._file then
    local path = plugin_root() .. '/tools.json'
    local ok, lines = pcall(vim.fn.readfile, path)
    if not ok or #lines == 0 then error('sightline: cannot read ' .. path) end
    M._file = vim.json.decode(table.concat(lines, '\n'))
  end
  return M._file
end

--- The tools this plugin offers, in the order tools.json lists them. Each:
--- name, method, title, description, inputSchema, annotations, and for the
--- adapters summary (the title) and write (whether it may change a file).
function M.list()
  if not M._specs then
    local out = {}
    for _, t in ipairs(M.file().tools) do
      if vim.tbl_contains(t.doors or {}, M.door) then
        t.summary = t.title
        t.write = not (t.annotations and t.annotations.readOnlyHint)
        table.insert(out, t)
      end
    end
    M._specs = out
  end
  return M._specs
end

setmetatable(M, {
  __index = function(_, k)
    if k == 'specs' then return M.list() end
  end,
})

function M.spec(name)
  for _, s in ipairs(M.list()) do
    if s.name == name then return s end
  end
end

--- The parameters of a tool as a JSON schema object: its input schema.
function M.json_schema(spec) return spec.inputSchema end

-- Arguments decoded from JSON hold vim.NIL for null: treat it as absent.
local function clean(args)
  if type(args) == 'string' then
    local ok, decoded = pcall(vim.json.decode, args ~= '' and args or '{}')
    if ok then args = decoded end
  end
  local out = {}
  for k, v in pairs(type(args) == 'table' and args or {}) do
    if v ~= vim.NIL then out[k] = v end
  end
  return out
end

---------------------------------------------------------------------------
-- Answers as a model reads them
---------------------------------------------------------------------------

--- The text a model reads for an answer, and whether it is a refusal: the
--- server's own rendering (asked for with render = true), in the words every
--- sightline door shows.
function M.format(_, res)
  local text = type(res.text) == 'string' and res.text or (res.message or '')
  return (text:gsub('\n$', '')), res.ok == false
end

---------------------------------------------------------------------------
-- Running a tool
---------------------------------------------------------------------------

--- Run a tool by name with the model's arguments; cb(text, is_error, result)
--- is called once, on the main loop. opts: session, agent, timeout.
function M.run(name, args, opts, cb)
  opts = opts or {}
  local function done(res, err)
    vim.schedule(function()
      if not res then return cb('error: ' .. tostring(err), true, nil) end
      local text, is_error = M.format(name, res)
      cb(text, is_error, res)
    end)
  end
  local spec = M.spec(name)
  if not spec then return done(nil, 'unknown tool ' .. tostring(name)) end
  return sl().tool(spec.method, clean(args),
    { session = opts.session, agent = opts.agent, timeout = opts.timeout, callback = done })
end

return M
