-- The agent tools sightline offers, independent of any agent plugin: their
-- names, descriptions and parameters, how a call runs (through the Lua API,
-- asynchronously) and how its answer reads for a model. The codecompanion
-- and avante adapters are thin shapes over these.
local M = {}

local function sl() return require('sightline') end

local edit_op = {
  type = 'object',
  description = 'One edit operation.',
  properties = {
    type = {
      type = 'string',
      enum = { 'replace_line', 'replace_range', 'insert_after', 'insert_before', 'delete_line', 'delete_range' },
      description = 'The operation.',
    },
    ref = { type = 'string', description = 'LINE:HASH of the line (replace_line, insert_after, insert_before, delete_line).' },
    start_ref = { type = 'string', description = 'LINE:HASH of the first line (replace_range, delete_range).' },
    end_ref = { type = 'string', description = 'LINE:HASH of the last line (replace_range, delete_range).' },
    new_content = {
      type = 'string',
      description = 'The new lines, joined by \\n, without LINE:HASH| prefixes (replace and insert operations).',
    },
  },
  required = { 'type' },
}

--- The tools, in the order they are offered. Each param: name, type
--- (string, integer, boolean, array), description, optional, enum, items.
M.specs = {
  {
    name = 'sightline_read',
    summary = 'Read file lines with LINE:HASH refs for editing',
    description = 'Read lines of a file. Each line comes back as `LINE:HASH|content`; `LINE:HASH` (e.g. `51:524g`) is the ref '
      .. 'sightline_edit takes to change that line. Only lines you have read can be edited. A long read is cut at a '
      .. 'budget: the notice at the end says which lines were left out, what they contain, and how to read them.',
    params = {
      { name = 'path', type = 'string', description = 'The file, relative to the project root (or absolute).' },
      { name = 'start', type = 'integer', optional = true, description = 'First line to read, 1-based (default 1).' },
      { name = 'end', type = 'integer', optional = true, description = 'Last line to read, inclusive (default: the end of the file).' },
    },
    write = false,
  },
  {
    name = 'sightline_edit',
    summary = 'Edit a file by LINE:HASH refs',
    description = 'Edit a file by the LINE:HASH refs sightline_read showed you. Operations: replace_line {ref, new_content}, '
      .. 'replace_range {start_ref, end_ref, new_content}, insert_after {ref, new_content}, insert_before {ref, new_content}, '
      .. 'delete_line {ref}, delete_range {start_ref, end_ref}. new_content holds the raw new lines joined by \\n, never '
      .. 'LINE:HASH| prefixes. All refs of one call name lines of the file as you read it; the batch applies whole or not '
      .. 'at all. The answer shows the edited region with fresh refs. A refusal says why; for lines you never read or '
      .. 'that changed since, it shows them (they now count as read) so you can retry at once.',
    params = {
      { name = 'path', type = 'string', description = 'The file, relative to the project root (or absolute).' },
      { name = 'edits', type = 'array', items = edit_op, description = 'The edit operations, applied all or none.' },
      { name = 'file_hash', type = 'string', optional = true, description = 'Refuse unless the file still has this hash (sha256:...).' },
    },
    write = true,
  },
  {
    name = 'sightline_apply_blocks',
    summary = 'Apply search/replace edit blocks',
    description = 'Apply edit blocks found in text. Each block is the file path on its own line, then\n'
      .. '<<<< EDIT\n(the exact current lines)\n==== REPLACE\n(the new lines)\n>>>> EDIT END\n'
      .. 'The EDIT half must occur exactly once in the file; an empty EDIT half creates the file. Paths are relative '
      .. 'to the project root. Lines you replace must have been read (sightline_read).',
    params = {
      { name = 'text', type = 'string', description = 'Text holding one or more edit blocks.' },
      { name = 'dry_run', type = 'boolean', optional = true, description = 'Only validate; change nothing.' },
    },
    write = true,
  },
  {
    name = 'sightline_write',
    summary = 'Create, replace text in, append to or overwrite a file',
    description = 'Write a file. mode create: a new file with content (refused if it exists). mode edit: replace old_text, '
      .. 'which must occur exactly once, with content. mode append: add content at the end. mode overwrite: replace the '
      .. 'whole file with content (you must have read all of it). Lines you change must have been read.',
    params = {
      { name = 'path', type = 'string', description = 'The file, relative to the project root (or absolute).' },
      { name = 'mode', type = 'string', enum = { 'create', 'edit', 'append', 'overwrite' }, description = 'How to write.' },
      { name = 'content', type = 'string', description = 'The new text.' },
      { name = 'old_text', type = 'string', optional = true, description = 'mode edit: the exact text to replace.' },
      { name = 'expected_version', type = 'string', optional = true, description = 'Refuse unless the file still has this hash (sha256:...).' },
    },
    write = true,
  },
  {
    name = 'sightline_ledger',
    summary = 'What you have read, written, or what changed since',
    description = 'Which lines of a file (or, without path, of every file) you have read, which you wrote, which changed '
      .. 'since you read them (stale: read them again), and which you have not read.',
    params = {
      { name = 'path', type = 'string', optional = true, description = 'The file, relative to the project root; omit for every file.' },
    },
    write = false,
  },
}

function M.spec(name)
  for _, s in ipairs(M.specs) do
    if s.name == name then return s end
  end
end

--- The parameters of a tool as a JSON schema object.
function M.json_schema(spec)
  local props, required = {}, {}
  for _, p in ipairs(spec.params) do
    local prop = { type = p.type, description = p.description, enum = p.enum, items = p.items }
    props[p.name] = prop
    if not p.optional then table.insert(required, p.name) end
  end
  return { type = 'object', properties = props, required = required }
end

-- Arguments decoded from JSON hold vim.NIL for null: treat it as absent.
local function clean(args)
  local out = {}
  for k, v in pairs(type(args) == 'table' and args or {}) do
    if v ~= vim.NIL then out[k] = v end
  end
  return out
end

local function num(v)
  if v == nil then return nil end
  return tonumber(v)
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
  args = clean(args)
  local function done(res, err)
    vim.schedule(function()
      if not res then return cb('error: ' .. tostring(err), true, nil) end
      local text, is_error = M.format(name, res)
      cb(text, is_error, res)
    end)
  end
  local common = { session = opts.session, agent = opts.agent, timeout = opts.timeout, callback = done, render = true }
  local api = sl()
  local o = vim.tbl_extend('force', common, {})
  if name == 'sightline_read' then
    o.path, o.start, o['end'] = args.path, num(args.start), num(args['end'])
    return api.read(o)
  elseif name == 'sightline_edit' then
    o.path, o.edits, o.file_hash = args.path, args.edits, args.file_hash
    return api.edit(o)
  elseif name == 'sightline_apply_blocks' then
    o.text, o.dry_run = args.text, args.dry_run == true
    return api.apply_blocks(o)
  elseif name == 'sightline_write' then
    o.path, o.mode, o.content, o.old_text, o.expected_version =
      args.path, args.mode, args.content, args.old_text, args.expected_version
    return api.write(o)
  elseif name == 'sightline_ledger' then
    o.path = args.path
    return api.ledger(o)
  end
  done(nil, 'unknown tool ' .. tostring(name))
end

return M
