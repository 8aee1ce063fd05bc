-- sightline: a language server for in-editor coding agents. A plain client
-- configuration, in the shape of nvim-lspconfig's lsp/ files, requiring
-- nothing: vim.lsp.enable('sightline') (Neovim 0.11+) with this folder, or
-- nvim-lspconfig, on the runtimepath. require('sightline').setup() lays the
-- plugin's own over it (coverage signs, strict workspace/applyEdit, the
-- settings, its cmd); override what you need with
-- vim.lsp.config('sightline', {...}), for instance
-- cmd = { '/path/to/sightline', 'serve' }.
--
-- Its workspace is the nearest folder above a file holding .git or
-- .sightline.json, as the server's own; it serves every text file there
-- (no filetypes list), none inside .git.
local markers = { '.git', '.sightline.json' }

local function root_of(path)
  local dir = vim.fn.fnamemodify(path, ':h')
  while true do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. '/' .. m) then return dir end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then return nil end
    dir = parent
  end
end

return {
  cmd = { 'sightline', 'serve' },
  root_markers = markers,
  root_dir = function(bufnr, on_dir)
    if vim.bo[bufnr].buftype ~= '' then return end
    local name = vim.api.nvim_buf_get_name(bufnr)
    if name == '' or name:match('^%a[%w+.-]*://') then return end
    local path = vim.fn.fnamemodify(name, ':p')
    local root = root_of(path)
    if root and not (path .. '/'):find('/.git/', #root, true) then on_dir(root) end
  end,
}
