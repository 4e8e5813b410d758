package lsp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/internal/lsp"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The tests drive the server as an editor does, over the protocol: open a
// document, edit it, wait for the diagnostics it publishes, ask for
// completions, hovers and definitions (the pattern of gopls' integration
// tests). Each test serves a library of its own in a folder of its own
// (fixture.Shop), never the shipped one, whose wording may change; the
// benchmarks serve a copy of the library built into the binary
// (fixture.LibraryCopy).

// waitFor bounds how long a test waits for the server. It is no timing
// target (the benchmark has those): only a guard against a test that hangs.
const waitFor = 60 * time.Second

// client is an editor's side of a session with a server.
type client struct {
	t    testing.TB
	root string
	conn jsonrpc2.Conn
	done chan error

	mu      sync.Mutex
	changed *sync.Cond
	diags   map[protocol.DocumentURI]protocol.PublishDiagnosticsParams
	texts   map[protocol.DocumentURI]string
	version map[protocol.DocumentURI]int32
}

type pipe struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipe) Close() error {
	for _, c := range p.closers {
		c.Close()
	}
	return nil
}

// start runs a server on the library folder root (as the workspace
// folder) and initializes it.
func start(t testing.TB, root string) *client {
	t.Helper()
	c := startRaw(t, root)
	var res protocol.InitializeResult
	c.call(protocol.MethodInitialize, protocol.InitializeParams{
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(fileURI(root)), Name: "library"}},
	}, &res)
	if res.ServerInfo == nil || res.ServerInfo.Name != "promptsmith" {
		t.Fatalf("initialize answered %+v", res)
	}
	c.notify(protocol.MethodInitialized, struct{}{})
	return c
}

// startShop runs a server on a copy of fixture.Shop, the library most
// tests edit, and opens the given files of it.
func startShop(t testing.TB, open ...string) *client {
	t.Helper()
	c := start(t, fixture.Shop(t))
	for _, p := range open {
		c.open(p)
	}
	return c
}

// startRaw runs a server and connects a client without initializing.
func startRaw(t testing.TB, root string) *client {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, root: root, done: make(chan error, 1),
		diags: map[protocol.DocumentURI]protocol.PublishDiagnosticsParams{},
		texts: map[protocol.DocumentURI]string{}, version: map[protocol.DocumentURI]int32{}}
	c.changed = sync.NewCond(&c.mu)
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	go func() {
		c.done <- lsp.Serve(ctx, c2sR, s2cW, pipe{closers: []io.Closer{c2sR, s2cW}}, lsp.Options{Log: log})
		s2cW.Close()
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipe{Reader: s2cR, Writer: c2sW, closers: []io.Closer{s2cR, c2sW}}))
	c.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("publishDiagnostics: %v", err)
			}
			c.mu.Lock()
			c.diags[p.URI] = p
			c.changed.Broadcast()
			c.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
		if ok, err := stopped(c.done); !ok {
			t.Errorf("the server did not stop")
		} else if err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return c
}

// stopped waits for Serve to return its error on done, and gives it;
// false when the server has not stopped within waitFor.
func stopped(done <-chan error) (bool, error) {
	select {
	case err := <-done:
		return true, err
	case <-time.After(waitFor):
		return false, nil
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func fileURI(p string) protocol.DocumentURI {
	return protocol.DocumentURI("file://" + filepath.ToSlash(p))
}

func (c *client) uri(p string) protocol.DocumentURI { return fileURI(filepath.Join(c.root, p)) }

func (c *client) call(method string, params, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// open opens a library file with its text on disk, or with text.
func (c *client) open(p string, text ...string) string {
	c.t.Helper()
	var body string
	if len(text) > 0 {
		body = text[0]
	} else {
		b, err := os.ReadFile(filepath.Join(c.root, p))
		if err != nil {
			c.t.Fatal(err)
		}
		body = string(b)
	}
	uri := c.uri(p)
	c.mu.Lock()
	c.texts[uri], c.version[uri] = body, 1
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "gotmpl", Version: 1, Text: body}})
	return body
}

// replace edits a document as an editor does: the first occurrence of
// old becomes new, sent as an incremental change.
func (c *client) replace(p, old, new string) {
	c.t.Helper()
	uri := c.uri(p)
	c.mu.Lock()
	text := c.texts[uri]
	i := strings.Index(text, old)
	if i < 0 {
		c.mu.Unlock()
		c.t.Fatalf("%s has no %q", p, old)
	}
	rng := protocol.Range{Start: position(text, i), End: position(text, i+len(old))}
	c.texts[uri] = text[:i] + new + text[i+len(old):]
	c.version[uri]++
	v := c.version[uri]
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"range": rng, "text": new}},
	})
}

// setText replaces a document's whole text (full sync).
func (c *client) setText(p, text string) {
	c.t.Helper()
	uri := c.uri(p)
	c.mu.Lock()
	c.texts[uri] = text
	c.version[uri]++
	v := c.version[uri]
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"text": text}},
	})
}

func (c *client) text(p string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.texts[c.uri(p)]
}

// position is the LSP position of a byte offset (the tests' texts are ASCII
// where they point).
func position(text string, off int) protocol.Position {
	line := strings.Count(text[:off], "\n")
	col := off - (strings.LastIndexByte(text[:off], '\n') + 1)
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// at is the position in a document just after the first occurrence of
// marker, or at its start with before.
func (c *client) at(p, marker string, before ...bool) protocol.Position {
	c.t.Helper()
	text := c.text(p)
	if text == "" {
		b, _ := os.ReadFile(filepath.Join(c.root, p))
		text = string(b)
	}
	i := strings.Index(text, marker)
	if i < 0 {
		c.t.Fatalf("%s has no %q", p, marker)
	}
	if len(before) > 0 && before[0] {
		return position(text, i)
	}
	return position(text, i+len(marker))
}

// diagnostics waits until the server has published diagnostics of a file
// that satisfy ok, and returns them.
func (c *client) diagnostics(p string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	uri := c.uri(p)
	deadline := time.Now().Add(waitFor)
	timer := time.AfterFunc(waitFor, func() {
		c.mu.Lock()
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if d, seen := c.diags[uri]; seen && ok(d.Diagnostics) {
			return d.Diagnostics
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no diagnostics of %s as expected; last: %+v", p, c.diags[uri].Diagnostics)
		}
		c.changed.Wait()
	}
}

// mistake types wrong in place of right in p, unsaved, as an author
// mistypes, and waits for a diagnostic that says all of words, which it
// returns.
func (c *client) mistake(p, right, wrong string, words ...string) protocol.Diagnostic {
	c.t.Helper()
	c.replace(p, right, wrong)
	return find(c.diagnostics(p, has(words...)), words...)
}

// fix puts right back in place of wrong in p and waits until p has no
// errors.
func (c *client) fix(p, wrong, right string) {
	c.t.Helper()
	c.replace(p, wrong, right)
	c.diagnostics(p, none)
}

// published waits for the diagnostics of a document's current version.
func (c *client) published(p string) []protocol.Diagnostic {
	c.t.Helper()
	uri := c.uri(p)
	c.mu.Lock()
	v := uint32(c.version[uri])
	c.mu.Unlock()
	return c.diagnostics(p, func([]protocol.Diagnostic) bool { return c.diags[uri].Version >= v })
}

// has reports whether one of the diagnostics says all of the words.
func has(words ...string) func([]protocol.Diagnostic) bool {
	return func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			all := true
			for _, w := range words {
				all = all && strings.Contains(d.Message, w)
			}
			if all {
				return true
			}
		}
		return false
	}
}

// none reports whether there are no errors among the diagnostics.
func none(ds []protocol.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == protocol.DiagnosticSeverityError {
			return false
		}
	}
	return true
}

func find(ds []protocol.Diagnostic, words ...string) protocol.Diagnostic {
	for _, d := range ds {
		if has(words...)([]protocol.Diagnostic{d}) {
			return d
		}
	}
	return protocol.Diagnostic{}
}

// completion is the list the server offers at pos in p.
func (c *client) completion(p string, pos protocol.Position) protocol.CompletionList {
	c.t.Helper()
	var list protocol.CompletionList
	c.mustCall(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}, Position: pos}}, &list)
	return list
}

// complete is the labels of the completion at pos in p.
func (c *client) complete(p string, pos protocol.Position) []string {
	c.t.Helper()
	return labels(c.completion(p, pos))
}

func labels(list protocol.CompletionList) []string {
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	return labels
}

func (c *client) symbols(p string) []protocol.DocumentSymbol {
	c.t.Helper()
	var syms []protocol.DocumentSymbol
	c.mustCall(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}}, &syms)
	return syms
}

func (c *client) codeLenses(p string) []protocol.CodeLens {
	c.t.Helper()
	var lenses []protocol.CodeLens
	c.mustCall(protocol.MethodTextDocumentCodeLens, protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}}, &lenses)
	return lenses
}

func (c *client) hover(p string, pos protocol.Position) string {
	c.t.Helper()
	var h *protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}, Position: pos}}, &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

func (c *client) definition(p string, pos protocol.Position) []protocol.Location {
	c.t.Helper()
	var locs []protocol.Location
	c.mustCall(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}, Position: pos}}, &locs)
	return locs
}
