package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/internal/lsp"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// rawSession talks to a server byte by byte, to send what no well-behaved
// client would.
type rawSession struct {
	t    *testing.T
	root string
	w    io.Writer
	r    *bufio.Reader
	done chan error
}

func startBytes(t *testing.T, root string) *rawSession {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	s := &rawSession{t: t, root: root, w: c2sW, r: bufio.NewReader(s2cR), done: make(chan error, 1)}
	go func() {
		s.done <- lsp.Serve(context.Background(), c2sR, s2cW, c2sR, lsp.Options{Root: root})
		s2cW.Close()
	}()
	t.Cleanup(func() { c2sW.Close() })
	return s
}

func (s *rawSession) send(body string) {
	s.t.Helper()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		s.t.Fatal(err)
	}
}

// read returns the next message the server sends.
func (s *rawSession) read() map[string]any {
	s.t.Helper()
	length := -1
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			s.t.Fatalf("reading: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		s.t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		s.t.Fatalf("the server sent %q: %v", body, err)
	}
	return msg
}

// response reads until the answer to id, skipping notifications.
func (s *rawSession) response(id float64) map[string]any {
	s.t.Helper()
	for {
		msg := s.read()
		if msg["id"] == id || (id < 0 && msg["id"] == nil && msg["method"] == nil) {
			return msg
		}
	}
}

func errorCode(msg map[string]any) float64 {
	e, _ := msg["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

func TestLspSurvivesMalformedMessages(t *testing.T) {
	t.Parallel()
	s := startBytes(t, fixture.Shop(t))
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if msg := s.response(1); msg["result"] == nil {
		t.Fatalf("initialize: %v", msg)
	}
	for _, bad := range []string{`{not json`, `[1,2,3]`, `{"jsonrpc":"2.0","id":{"x":1},"method":"x"}`, `{"jsonrpc":"2.0"}`} {
		s.send(bad)
		if code := errorCode(s.response(-1)); code != -32700 && code != -32600 {
			t.Errorf("%s answered with code %v", bad, code)
		}
	}
	// a header without a length, then garbage, then a good message
	fmt.Fprintf(s.w, "X-Nonsense: 1\r\n\r\n")
	if code := errorCode(s.response(-1)); code != -32700 {
		t.Errorf("a missing Content-Length answered with code %v", code)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}`)
	if code := errorCode(s.response(2)); code != -32601 {
		t.Errorf("an unknown method answered with code %v", code)
	}
	s.send(`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":"nonsense"}`)
	if code := errorCode(s.response(3)); code != -32602 {
		t.Errorf("bad params answered with code %v", code)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`)
	s.response(4)
	s.send(`{"jsonrpc":"2.0","method":"exit"}`)
	ok, err := stopped(s.done)
	if !ok {
		t.Fatal("the server did not exit")
	}
	if err != nil {
		t.Errorf("Serve after exit: %v", err)
	}
}

func TestLspDocumentsOutsideTheWorkspace(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	outside := filepath.Join(t.TempDir(), "notes.md.tmpl")
	uri := fileURI(outside)
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: "{{ .x. }}"}})
	var list protocol.CompletionList
	c.mustCall(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Character: 6}}}, &list)
	if len(list.Items) != 0 {
		t.Errorf("completion outside the library: %d items", len(list.Items))
	}
	var h *protocol.Hover
	c.mustCall(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: "untitled:Untitled-1"}}}, &h)
	if h != nil {
		t.Errorf("hover on an untitled buffer: %+v", h)
	}
	// the server still works for the library
	c.open(shopMain)
	c.diagnostics(shopMain, none)
}

func TestLspBrokenLibrary(t *testing.T) {
	t.Parallel()
	root := fixture.Shop(t)
	// a schema that is not JSON, a manifest that does not parse
	os.WriteFile(filepath.Join(root, "schemas", "shop.schema.json"), []byte("{ nope"), 0o644)
	c := start(t, root)
	c.open(shopSchema)
	c.open(shopMain)
	c.diagnostics(shopSchema, func(ds []protocol.Diagnostic) bool { return !none(ds) })
	got := c.complete(shopMain, c.at(shopMain, "{{ range "))
	_ = got // no schema, but an answer
	c.setText(shopSchema, "{}")
	c.diagnostics(shopSchema, none)
	m := "templates/shop/prompt.yaml"
	c.open(m)
	c.setText(m, "sections: [\n")
	c.diagnostics(m, func(ds []protocol.Diagnostic) bool { return !none(ds) })
}

func TestLspLargeDocument(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	big := strings.Repeat("Some words of a long template, {{ .owner.name }} and more.\n", 10<<20/60)
	c.open(shopMain, big+"{{ if }}\n")
	// over the library's file limit: refused before it is parsed, and
	// completion goes on from the version that loaded
	c.diagnostics(shopMain, has("a library file may hold"))
	got := c.complete(shopMain, c.at(shopMain, "{{ .owner.n"))
	if len(got) == 0 {
		t.Errorf("no completion in a 10 MB document")
	}
	small := c.text(shopMain)[:1000]
	c.setText(shopMain, small[:strings.LastIndexByte(small, '\n')+1])
	c.diagnostics(shopMain, func(ds []protocol.Diagnostic) bool { return none(ds) && !has("a library file may hold")(ds) })
}

func TestLspCancelledRequest(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	c.open(shopMain, strings.Repeat("{{ .owner.name }}\n", 200000))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		var syms []protocol.DocumentSymbol
		_, err := c.conn.Call(ctx, protocol.MethodTextDocumentDocumentSymbol,
			protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(shopMain)}}, &syms)
		errc <- err
	}()
	time.Sleep(time.Millisecond)
	cancel()
	// the caller gives up; the server is told, and answers what comes next
	if err := <-errc; err == nil {
		t.Log("the request finished before it was cancelled")
	} else if !errors.Is(err, context.Canceled) {
		var rpc *jsonrpc2.Error
		if !errors.As(err, &rpc) {
			t.Errorf("cancelled request: %v", err)
		}
	}
	c.notify(protocol.MethodCancelRequest, map[string]any{"id": 99999})
	c.notify(protocol.MethodCancelRequest, map[string]any{"id": "nope"})
	c.notify(protocol.MethodCancelRequest, map[string]any{"id": []int{1}})
	if h := c.hover(shopMain, c.at(shopMain, "{{ .owner.na")); !strings.Contains(h, "name") {
		t.Errorf("hover after cancellations: %q", h)
	}
}

// TestLspCancelRequest cancels a request the way the protocol does, with
// $/cancelRequest: the server answers it with RequestCancelled.
func TestLspCancelRequest(t *testing.T) {
	t.Parallel()
	s := startBytes(t, fixture.Shop(t))
	root := s.root
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	s.response(1)
	uri := string(fileURI(filepath.Join(root, shopMain)))
	big, _ := json.Marshal(strings.Repeat("# Heading\n{{ define \"x\" }}{{ .owner.name }}{{ end }}\n", 30000))
	s.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"gotmpl","version":1,"text":` + string(big) + `}}}`)
	s.send(`{"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"` + uri + `"}}}`)
	s.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)
	if code := errorCode(s.response(7)); code != -32800 {
		t.Errorf("the cancelled request answered with code %v", code)
	}
	s.send(`{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":1,"character":24}}}`)
	if msg := s.response(8); msg["error"] != nil {
		t.Errorf("hover after a cancellation: %v", msg)
	}
}

func TestLspRenderCommandAndCodeLens(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	lenses := c.codeLenses(shopMain)
	if len(lenses) == 0 || lenses[0].Command == nil {
		t.Fatalf("code lenses %+v", lenses)
	}
	var out lsp.Rendered
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments}, &out)
	if out.Variant != "shop" || !strings.Contains(out.Text, "Owner:") {
		t.Errorf("rendered %+v", out)
	}
	// the unsaved text is what renders
	c.replace(shopMain, "Owner:", "Keeper:")
	c.mustCall(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments}, &out)
	if !strings.Contains(out.Text, "Keeper:") {
		t.Errorf("rendered from disk, not the buffer")
	}
	err := c.call(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: lenses[0].Command.Command, Arguments: []any{string(c.uri(shopMain)), "no-such-example"}}, &out)
	if err == nil || !strings.Contains(err.Error(), "no-such-example") {
		t.Errorf("an unknown example: %v", err)
	}
}

// TestLspSecondInitialize: the protocol allows one initialize; a second,
// which would swap the library under the open documents, is refused, and
// the server goes on serving the first.
func TestLspSecondInitialize(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	err := c.call(protocol.MethodInitialize, protocol.InitializeParams{RootURI: protocol.DocumentURI(fileURI(t.TempDir()))}, nil)
	var rpc *jsonrpc2.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc2.InvalidRequest {
		t.Fatalf("a second initialize: %v, want InvalidRequest", err)
	}
	c.open(shopMain)
	c.diagnostics(shopMain, none)
}
