-- Drives msgraphlint's language server through Neovim's built-in LSP client (headless).
-- Run by tests/test_lsp_neovim.py:
--   nvim --headless --clean -u NONE -S nvim_lsp_session.lua
-- with, in the environment: MSGRAPHLINT_NVIM_SNIPPET (the README's Neovim 0.7 snippet, as
-- a file: the client set-up under test), MSGRAPHLINT_NVIM_FILE (a .py file),
-- MSGRAPHLINT_NVIM_OUT (where the JSON results go).
local out_path = os.getenv("MSGRAPHLINT_NVIM_OUT")
local file = os.getenv("MSGRAPHLINT_NVIM_FILE")
local results = { steps = {}, nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch) }

local function finish(err)
  if err then results.error = err end
  local fh = io.open(out_path, "w")
  fh:write(vim.fn.json_encode(results))
  fh:close()
  vim.cmd("qall!")
end

local function lines(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function codes(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, { code = d.code, lnum = d.lnum, col = d.col })
  end
  return out
end

local ok, err = pcall(function()
  -- the client set-up the README documents, exactly (a FileType autocommand)
  vim.cmd("filetype on")
  dofile(os.getenv("MSGRAPHLINT_NVIM_SNIPPET"))

  -- 1. open a file and wait for diagnostics
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client_id
  local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients  -- 0.10+ / 0.7
  vim.wait(10000, function()
    for _, c in pairs(get_clients()) do
      if c.name == "msgraphlint" and vim.lsp.buf_is_attached(buf, c.id) then client_id = c.id end
    end
    return client_id ~= nil
  end, 50)
  assert(client_id, "the snippet attached no msgraphlint client to a Python buffer")
  local got = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  results.steps.open = { ok = got, diagnostics = codes(buf) }
  assert(got, "no diagnostics after opening the file")

  -- 2. ask for code actions on the finding and apply the rule's fix, as :lua vim.lsp.buf.code_action() would
  local client = vim.lsp.get_client_by_id(client_id)
  local d = vim.diagnostic.get(buf)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = {} },  -- the server picks the findings by range
  }
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000)
  local titles, applied = {}, nil
  for _, resp in pairs(responses or {}) do
    for _, action in ipairs(resp.result or {}) do
      table.insert(titles, action.title)
      if applied == nil and action.title:find("print_", 1, true) then
        vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
        applied = action.title
      end
    end
  end
  results.steps.code_action = { titles = titles, applied = applied, text = lines(buf) }
  assert(applied, "no fix among the code actions")
  local cleared = vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
  results.steps.code_action.cleared = cleared

  -- 3. edit to bring a finding back, then edit to clear it
  vim.api.nvim_buf_set_lines(buf, 5, 6, false, { "        print(x)" })
  local back = vim.wait(30000, function() return #vim.diagnostic.get(buf) == 1 end, 50)
  vim.api.nvim_buf_set_lines(buf, 5, 6, false, {})
  local gone = vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
  results.steps.edit = { back = back, cleared = gone, text = lines(buf) }

  -- 4. an untitled buffer: never written, named with an untitled:// URI, which Neovim sends as is
  --    (a buffer with no name at all is sent as "file://", and diagnostics for that URI
  --    cannot find their way back to it in Neovim)
  vim.cmd("enew")
  local scratch = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(scratch, "untitled://Untitled-1")
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  vim.bo[scratch].filetype = "python"  -- the snippet's FileType autocommand attaches the client
  vim.api.nvim_buf_set_lines(scratch, 5, 5, false, { "        print(x)" })
  local untitled = vim.wait(30000, function() return #vim.diagnostic.get(scratch) > 0 end, 50)
  results.steps.untitled = { ok = untitled, diagnostics = codes(scratch), uri = vim.uri_from_bufnr(scratch),
                             on_disk = vim.fn.filereadable(vim.api.nvim_buf_get_name(scratch)) == 1 }
end)
finish(not ok and tostring(err) or nil)
