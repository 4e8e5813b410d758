-- Drives render lsp from Neovim's built-in LSP client, headless, as an
-- author would: open a shipped template, type a misspelt field, then read
-- back the diagnostic, a completion list, a hover and a definition, and
-- jump from a template's use of a partial to the partial's file. The
-- Go test TestLspNeovim runs it and checks what it writes to
-- $PROMPTSMITH_OUT (JSON). Written for Neovim 0.7 (Debian's) and later.
local render = os.getenv('PROMPTSMITH_RENDER')
local root = os.getenv('PROMPTSMITH_ROOT')
local out = os.getenv('PROMPTSMITH_OUT')
local report = { steps = {} }
vim.o.hidden = true -- leave the edited buffer unsaved while another is opened

local function save()
  vim.fn.writefile({ vim.fn.json_encode(report) }, out)
end

local function step(name)
  table.insert(report.steps, name)
  save()
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/templates/space/goals.md.tmpl'))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'promptsmith',
    cmd = { render, 'lsp' },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = 'library' } },
  })
  assert(id, 'the client did not start')
  vim.lsp.buf_attach_client(buf, id)
  assert(vim.wait(30000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.initialized
  end, 50), 'the server did not initialize')
  step('initialized')

  -- type a misspelt field at the end of the line GOALS:
  local lnum = vim.fn.search('^GOALS:')
  assert(lnum > 0, 'no GOALS: line')
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('A {{ .agent.nmae }}<Esc>', true, false, true), 'xt', false)
  step('typed')
  local found
  assert(vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find('nmae', 1, true) then
        found = d
        return true
      end
    end
    return false
  end, 50), 'no diagnostic of the misspelt field')
  report.diagnostic = { message = found.message, lnum = found.lnum, col = found.col, end_col = found.end_col, severity = found.severity }
  step('diagnostic')

  local line = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1]
  local at = line:find('.agent.', 1, true)
  local function params(col)
    return { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = lnum - 1, character = col } }
  end
  local function request(method, col)
    local res, err = vim.lsp.buf_request_sync(buf, method, params(col), 20000)
    assert(res, method .. ': ' .. tostring(err))
    for _, r in pairs(res) do
      assert(not r.err, method .. ': ' .. vim.inspect(r.err))
      return r.result
    end
  end

  -- completion just after ".agent."
  local list = request('textDocument/completion', at - 1 + #'.agent.')
  local items = list.items or list
  report.completion = {}
  for _, it in ipairs(items) do
    table.insert(report.completion, it.label)
  end
  step('completion')

  -- hover and definition on "agent"
  local hover = request('textDocument/hover', at + 2)
  report.hover = hover and hover.contents and (hover.contents.value or hover.contents) or vim.NIL
  step('hover')
  local def = request('textDocument/definition', at + 2)
  local loc = def and (def[1] or def)
  report.definition = loc and { uri = loc.uri or loc.targetUri, line = (loc.range or loc.targetSelectionRange).start.line } or vim.NIL
  step('definition')

  -- jump from {{ template "_admin.tmpl" }} to the partial
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/templates/space/trigger.md.tmpl'))
  local tbuf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(tbuf, id)
  local tl = vim.fn.search('template "_admin.tmpl"')
  assert(tl > 0, 'no template "_admin.tmpl" in trigger.md.tmpl')
  local tline = vim.api.nvim_buf_get_lines(tbuf, tl - 1, tl, false)[1]
  local res, err = vim.lsp.buf_request_sync(tbuf, 'textDocument/definition', {
    textDocument = { uri = vim.uri_from_bufnr(tbuf) },
    position = { line = tl - 1, character = tline:find('_admin', 1, true) + 1 },
  }, 20000)
  assert(res, 'definition of the partial: ' .. tostring(err))
  for _, r in pairs(res) do
    local l = r.result and (r.result[1] or r.result)
    report.partial = l and (l.uri or l.targetUri) or vim.NIL
  end
  step('partial')
  report.ok = true
end

local ok, err = pcall(run)
if not ok then
  report.error = tostring(err)
end
save()
vim.cmd('qall!')
