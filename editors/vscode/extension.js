// The promptsmith extension: a language client that starts `render lsp`
// for the library working copy of the workspace. Everything it shows
// (diagnostics, completion, hover, definitions, symbols, the code lens
// that renders an example) comes from the server; this file starts it and
// shows a rendered prompt beside the template.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function serverOptions() {
  const cfg = vscode.workspace.getConfiguration('promptsmith');
  const args = ['lsp'];
  const templates = cfg.get('templates');
  if (templates) {
    args.push('--templates', templates);
  }
  return { command: cfg.get('path') || 'render', args, transport: TransportKind.stdio };
}

async function activate(context) {
  const files = (pattern) => ({ scheme: 'file', pattern });
  client = new LanguageClient('promptsmith', 'promptsmith', serverOptions(), {
    documentSelector: [
      { scheme: 'file', language: 'promptsmith-template' },
      files('**/templates/*/prompt.yaml'),
      files('**/templates/*/examples/*.{yaml,yml,json}'),
      files('**/schemas/*.schema.json'),
    ],
    middleware: {
      // The server's promptsmith.renderExample returns the prompt; show it.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        if (command === 'promptsmith.renderExample' && result && typeof result.text === 'string') {
          const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: result.text });
          await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
        }
        return result;
      },
    },
  });
  context.subscriptions.push(
    vscode.commands.registerCommand('promptsmith.restart', async () => {
      await client.restart();
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
