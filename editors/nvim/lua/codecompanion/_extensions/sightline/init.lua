-- codecompanion.nvim loads extensions from codecompanion._extensions.<name>:
--   require('codecompanion').setup({ extensions = { sightline = { opts = {} } } })
return require('sightline.codecompanion')
