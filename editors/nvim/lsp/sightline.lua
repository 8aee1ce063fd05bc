-- sightline for vim.lsp.enable('sightline') (Neovim 0.11+), with this folder
-- on the runtimepath. The same client as require('sightline').setup() starts:
-- coverage signs, strict workspace/applyEdit, the settings; the Lua API and
-- the :Sightline* commands (after setup) use this client rather than start
-- another. Override what you need with vim.lsp.config('sightline', {...}),
-- for instance cmd = { '/path/to/sightline', 'serve' }.
local sightline = require('sightline')
local config = sightline.lsp_config()
-- Any file inside a workspace (the folder holding .git above it), none in
-- .git itself; no filetype list: sightline serves every text file.
config.root_dir = sightline.lsp_root_dir
config.root_markers = { '.git' }
return config
