-- Drives render lsp from Neovim's built-in LSP client, headless, as an
-- author would, on the library TestLspNeovim writes (fixture.Shop): open
-- the section templates/shop/main.md.tmpl, type a misspelt field, then read
-- back the diagnostic, a completion list, a hover and a definition; type
-- the forms of range an author writes and read what completes inside each;
-- jump from a template's use of a partial to the partial's file; and
-- create a new variant whose input holds a list of objects, saving its
-- files as an author does, and complete inside its range. The Go test
-- checks what the script writes to $PROMPTSMITH_OUT (JSON). Written for
-- Neovim 0.7 (Debian's) and later.
local render = os.getenv('PROMPTSMITH_RENDER')
local root = os.getenv('PROMPTSMITH_ROOT')
local out = os.getenv('PROMPTSMITH_OUT')
local report = { steps = {}, ranges = {} }
vim.o.hidden = true -- leave the edited buffer unsaved while another is opened

local function save()
  vim.fn.writefile({ vim.fn.json_encode(report) }, out)
end

local function step(name)
  table.insert(report.steps, name)
  save()
end

local function keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), 'xt', false)
end

local function request(buf, method, line, col)
  local res, err = vim.lsp.buf_request_sync(buf, method, {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = col },
  }, 20000)
  assert(res, method .. ': ' .. tostring(err))
  for _, r in pairs(res) do
    assert(not r.err, method .. ': ' .. vim.inspect(r.err))
    return r.result
  end
end

local function labels(list)
  local out = {}
  for _, it in ipairs(list and (list.items or list) or {}) do
    table.insert(out, it.label)
  end
  return out
end

-- completeAfter types text on a new last line of the buffer and asks for
-- completion at its end, as the author would after typing it; then the
-- line goes again.
local function completeAfter(buf, text)
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  keys('o' .. text .. '<Esc>')
  local lnum = vim.api.nvim_buf_line_count(buf)
  local line = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1]
  assert(line == text, 'typed ' .. vim.inspect(line) .. ', not ' .. vim.inspect(text))
  local got = labels(request(buf, 'textDocument/completion', lnum - 1, #line))
  keys('dd')
  return got
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/templates/shop/main.md.tmpl'))
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

  -- type a misspelt field at the end of the line Owner:
  local lnum = vim.fn.search('^Owner:')
  assert(lnum > 0, 'no Owner: line')
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  keys('A {{ .owner.nmae }}<Esc>')
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
  local at = line:find('.owner.nmae', 1, true)
  -- completion just after ".owner."
  report.completion = labels(request(buf, 'textDocument/completion', lnum - 1, at - 1 + #'.owner.'))
  step('completion')

  -- hover and definition on "owner"
  local hover = request(buf, 'textDocument/hover', lnum - 1, at + 2)
  report.hover = hover and hover.contents and (hover.contents.value or hover.contents) or vim.NIL
  step('hover')
  local def = request(buf, 'textDocument/definition', lnum - 1, at + 2)
  local loc = def and (def[1] or def)
  report.definition = loc and { uri = loc.uri or loc.targetUri, line = (loc.range or loc.targetSelectionRange).start.line } or vim.NIL
  step('definition')

  -- what completes inside the forms of range, typed at the end of the file
  for name, text in pairs({
    range = '{{ range .items }}{{ .',
    variable = '{{ range $e := .items }}{{ $e.',
    take = '{{ range take 5 .items }}{{ .',
    nested = '{{ range .aisles }}{{ range .items }}{{ .',
    outer = '{{ range .aisles }}{{ .',
  }) do
    report.ranges[name] = completeAfter(buf, text)
  end
  step('ranges')

  -- jump from {{ template "_item.tmpl" . }} to the partial
  local tl = vim.fn.search('template "_item.tmpl"')
  assert(tl > 0, 'no template "_item.tmpl" in main.md.tmpl')
  local tline = vim.api.nvim_buf_get_lines(buf, tl - 1, tl, false)[1]
  local p = request(buf, 'textDocument/definition', tl - 1, tline:find('_item', 1, true) + 1)
  local pl = p and (p[1] or p)
  report.partial = pl and (pl.uri or pl.targetUri) or vim.NIL
  step('partial')

  -- a new variant, its files written and saved one by one
  local function write(path, lines)
    vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. path))
    vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
    vim.cmd('write')
  end
  vim.fn.mkdir(root .. '/templates/crew', 'p')
  write('schemas/crew.schema.json', {
    '{',
    '  "$schema": "https://json-schema.org/draft/2020-12/schema",',
    '  "title": "crew",',
    '  "type": "object",',
    '  "additionalProperties": false,',
    '  "required": ["members"],',
    '  "properties": {',
    '    "members": {',
    '      "type": "array",',
    '      "description": "Who is on board.",',
    '      "items": {',
    '        "type": "object",',
    '        "additionalProperties": false,',
    '        "required": ["handle", "role"],',
    '        "properties": {',
    '          "handle": {"type": "string", "description": "What the crew calls them."},',
    '          "role": {"enum": ["pilot", "cook"], "description": "Their job."}',
    '        }',
    '      }',
    '    }',
    '  }',
    '}',
  })
  write('templates/crew/prompt.yaml', { 'description: A crew list', 'schema: crew', 'sections: [roster]' })
  write('templates/crew/roster.md.tmpl', { '# Crew', '{{ range .members }}', '- {{ .handle }}', '{{ end }}' })
  local rbuf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(rbuf, id)
  report.variant = completeAfter(rbuf, '{{ range $m := .members }}{{ $m.')
  step('variant')
  report.ok = true
end

local ok, err = pcall(run)
if not ok then
  report.error = tostring(err)
end
save()
vim.cmd('qall!')
