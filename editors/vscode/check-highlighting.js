// Tokenizes a template the way VS Code does (vscode-textmate with the
// Oniguruma engine) and checks that the template's actions are found
// inside Markdown: in a heading, in a list item, in a paragraph, and that
// a comment action is a comment. VS Code's own Markdown grammar is not
// available outside VS Code, so a stand-in with the same shape (a heading
// matched whole with inline captures, paragraphs and list items as
// begin/end rules, bold text a begin/end rule) takes its place. Run by .ci/run with vscode-textmate and
// vscode-oniguruma installed beside it.
'use strict';
const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const markdown = {
  scopeName: 'text.html.markdown',
  patterns: [{ include: '#heading' }, { include: '#list' }, { include: '#paragraph' }],
  repository: {
    heading: {
      match: '^(#{1,6})\\s+(.*)$',
      name: 'markup.heading.markdown',
      captures: { 2: { name: 'entity.name.section.markdown', patterns: [{ include: '#inline' }] } },
    },
    list: { begin: '^\\s*[-*]\\s', end: '$', name: 'markup.list.markdown', patterns: [{ include: '#inline' }] },
    paragraph: { begin: '^(?=\\S)', end: '$', name: 'meta.paragraph.markdown', patterns: [{ include: '#inline' }] },
    inline: { patterns: [{ begin: '\\*\\*', end: '\\*\\*', name: 'markup.bold.markdown' }] },
  },
};

async function main() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm')).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (p) => new oniguruma.OnigScanner(p),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      if (scope === 'text.html.markdown') {
        return vsctm.parseRawGrammar(JSON.stringify(markdown), 'markdown.json');
      }
      const file = { 'text.html.markdown.promptsmith': 'promptsmith.tmLanguage.json', 'source.gotemplate.injection.promptsmith': 'actions.tmLanguage.json' }[scope];
      if (!file) return null;
      const p = path.join(__dirname, 'syntaxes', file);
      return vsctm.parseRawGrammar(fs.readFileSync(p, 'utf8'), p);
    },
    getInjections: (scope) => (scope === 'text.html.markdown.promptsmith' ? ['source.gotemplate.injection.promptsmith'] : []),
  });
  const grammar = await registry.loadGrammar('text.html.markdown.promptsmith');
  const lines = [
    '# Goals of {{ .agent.name }}',
    '- [{{ .priority }}] {{ .title | trim }}',
    'You are **{{ $.agent.name }}**, {{ if .agent.isAdmin }}the admin{{ end }}.',
    '{{- /* a comment with {{ braces }} */ -}}',
  ];
  let state = vsctm.INITIAL;
  const seen = [];
  for (const line of lines) {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    for (const t of r.tokens) {
      seen.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
  }
  const scopeOf = (text) => (seen.find((t) => t.text === text) || { scopes: [] }).scopes;
  const expect = [
    ['.agent', 'variable.other.property.gotemplate', 'markup.heading.markdown'],
    ['.priority', 'variable.other.property.gotemplate', 'markup.list.markdown'],
    ['trim', 'support.function.gotemplate', 'markup.list.markdown'],
    ['$', 'variable.other.gotemplate', 'markup.bold.markdown'],
    ['if', 'keyword.control.gotemplate', 'meta.paragraph.markdown'],
    ['the admin', 'meta.paragraph.markdown', null],
  ];
  let failed = 0;
  for (const [text, scope, inside] of expect) {
    const scopes = scopeOf(text);
    if (!scopes.includes(scope) || (inside && !scopes.includes(inside)) || (text === 'the admin' && scopes.some((s) => s.endsWith('.gotemplate')))) {
      console.error(`check-highlighting: ${JSON.stringify(text)} has scopes ${scopes.join(' ')}, want ${scope}${inside ? ' inside ' + inside : ''}`);
      failed++;
    }
  }
  const comment = seen.filter((t) => lines[3].includes(t.text) && t.text.includes('braces'));
  if (!comment.length || !comment.every((t) => t.scopes.includes('comment.block.gotemplate'))) {
    console.error('check-highlighting: the comment action is not a comment: ' + JSON.stringify(comment));
    failed++;
  }
  if (failed) process.exit(1);
  console.log(`check-highlighting: actions highlighted in a heading, a list item, bold text, a paragraph; comments as comments`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
