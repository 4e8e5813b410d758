// Compiles every pattern of the extension's TextMate grammars, so that a
// typo in one fails CI rather than silently breaking highlighting. The
// grammars' patterns keep to what JavaScript's RegExp and Oniguruma (the
// engine VS Code runs them with) read alike.
'use strict';
const fs = require('fs');
const path = require('path');

let count = 0;
function walk(node, where) {
  if (Array.isArray(node)) {
    node.forEach((n, i) => walk(n, `${where}[${i}]`));
    return;
  }
  if (node === null || typeof node !== 'object') {
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (['match', 'begin', 'end'].includes(key) && typeof value === 'string') {
      try {
        new RegExp(value);
        count++;
      } catch (err) {
        console.error(`${where}.${key}: ${err.message}`);
        process.exitCode = 1;
      }
    } else {
      walk(value, `${where}.${key}`);
    }
  }
}
for (const f of fs.readdirSync(path.join(__dirname, 'syntaxes'))) {
  walk(JSON.parse(fs.readFileSync(path.join(__dirname, 'syntaxes', f), 'utf8')), f);
}
console.log(`check-grammar: ${count} patterns compile`);
