-- Session Knowledge in Neovim 0.7 or later (Debian 12 ships 0.7.2): warnings on .knowledge/** text that reads as an
-- instruction to a model, and the "Mark as reviewed" code action. Put it in your init.lua, or :luafile it.
local cmd = { 'session-knowledge', 'lsp', '--stdio' } -- or { 'node', '/path/to/dist/cli.js', 'lsp', '--stdio' }
local clients = {} -- one server per project folder (Neovim 0.7 has no vim.lsp.start to reuse one)

vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  pattern = '*/.knowledge/*',
  callback = function(args)
    -- The project folder: the nearest one above the file that holds .knowledge/ (no vim.fs before 0.8).
    local found = vim.fn.finddir('.knowledge', vim.fn.fnamemodify(args.file, ':p:h') .. ';')
    if found == '' then return end
    local root = vim.fn.fnamemodify(found, ':p:h:h')
    local config = { name = 'session-knowledge', cmd = cmd, root_dir = root }
    if vim.lsp.start then -- 0.8+: starts the server once per root, attaches the buffer
      vim.lsp.start(config, { bufnr = args.buf })
      return
    end
    local id = clients[root]
    local client = id and vim.lsp.get_client_by_id(id)
    if not client or client.is_stopped() then
      id = vim.lsp.start_client(config)
      clients[root] = id
    end
    if id then vim.lsp.buf_attach_client(args.buf, id) end
  end,
})
