// Package lsp is the language server behind render lsp: it brings what the
// engine knows of a library (each variant's input schema, the function
// catalog, the partials, the manifest and its checks) to the editor where
// an author types. Diagnostics come from the unsaved buffers, through the
// engine's own loading, lint and rendering, so that the editor says what
// render lint and render test would.
//
// The protocol runs over one stream (stdin and stdout for render lsp);
// the server logs only to the logger it is given, never to that stream.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/engine"
)

// Options configures Serve.
type Options struct {
	// Root is the library folder to serve (holding templates/ and
	// schemas/), or a folder above or below it. Empty: the workspace folder
	// the editor names in initialize.
	Root string
	// Log receives what the server has to say (never the protocol's
	// stream); nil discards it.
	Log *slog.Logger
	// Engine are options for every library the server loads (limits).
	Engine []engine.Option
}

// Server is one editor's session: its open documents, the library they
// make, and the diagnostics published for it.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn

	mu       sync.Mutex
	root     string // the library folder; "" until known
	fsRoot   *os.Root
	docs     map[string]*document                        // open documents by library path
	gen      int                                         // counts changes to the documents
	snap     *snapshot                                   // the library of generation snap.gen, once loaded
	good     map[string]goodVariant                      // each variant's last version that loaded
	diags    map[string]map[string][]protocol.Diagnostic // variant ("" for the library) → path → diagnostics
	shown    map[string]bool                             // paths published with diagnostics
	pending  map[string]bool                             // variants to check again
	wake     chan struct{}
	exited   chan struct{} // closed when the client says exit
	exitOnce sync.Once
	shutdown bool
	// initialized: initialize was answered; a second one is refused.
	initialized bool
	methods     map[string]method // methodTable
}

// Serve runs a server on r and w until the client says exit, r ends or
// ctx is done. closer, when not nil, is closed at the end (what r reads
// from, so that a pending read ends).
func Serve(ctx context.Context, r io.Reader, w io.Writer, closer io.Closer, opts Options) error {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, docs: map[string]*document{},
		diags: map[string]map[string][]protocol.Diagnostic{}, good: map[string]goodVariant{}, shown: map[string]bool{},
		pending: map[string]bool{}, wake: make(chan struct{}, 1), exited: make(chan struct{}), methods: methodTable()}
	defer s.closeRoot()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.conn = jsonrpc2.NewConn(newStream(r, w, closer, log))
	s.conn.Go(ctx, s.handler())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.checker(ctx)
	}()
	var err error
	select {
	case <-s.conn.Done():
		err = s.conn.Err()
	case <-s.exited:
		s.conn.Close() // a read still waiting ends when closer closes what it reads
	case <-ctx.Done():
		s.conn.Close()
	}
	cancel()
	<-done
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
		return err
	}
	return nil
}

// handler is the chain every message goes through: $/cancelRequest is
// handled at once, the others one at a time in the order they came (an
// edit before the completion that follows it), each in a goroutine of its
// own so that a cancellation can reach one that runs.
func (s *Server) handler() jsonrpc2.Handler {
	inner, cancel := jsonrpc2.CancelHandler(jsonrpc2.AsyncHandler(s.handle))
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() != protocol.MethodCancelRequest {
			return inner(ctx, reply, req)
		}
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			if n, err := strconv.ParseInt(string(p.ID), 10, 32); err == nil {
				cancel(jsonrpc2.NewNumberID(int32(n)))
			} else if str, err := strconv.Unquote(string(p.ID)); err == nil {
				cancel(jsonrpc2.NewStringID(str))
			}
		}
		return reply(ctx, nil, nil) // a notification: nothing is sent
	}
}

// handle answers one message. It never fails the connection: a panic in a
// feature is the server's bug, logged and answered with an internal error,
// and the session goes on.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	replied := false
	answer := func(result any, err error) error {
		if replied {
			return nil
		}
		replied = true
		if ctx.Err() != nil { // cancelled: whatever was computed is not the answer
			if _, call := req.(*jsonrpc2.Call); call {
				result, err = nil, jsonrpc2.NewError(jsonrpc2.Code(-32800), "request cancelled")
			}
		}
		if werr := reply(context.WithoutCancel(ctx), result, err); werr != nil {
			s.log.Debug("cannot reply", "method", req.Method(), "err", werr)
		}
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic", "method", req.Method(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = answer(nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", req.Method(), r))
		}
	}()
	result, ferr := s.dispatch(ctx, req)
	if ferr != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(ferr, &rpcErr) {
			ferr = jsonrpc2.NewError(jsonrpc2.InternalError, ferr.Error())
		}
		s.log.Debug("request failed", "method", req.Method(), "err", ferr)
	}
	return answer(result, ferr)
}

// params decodes a request's parameters, or says they are invalid.
func params(req jsonrpc2.Request, v any) error {
	if err := json.Unmarshal(req.Params(), v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params of %s: %v", req.Method(), err)
	}
	return nil
}

// dispatch runs the method; what it returns is the result of a call (a
// notification's is dropped).
func (s *Server) dispatch(ctx context.Context, req jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	down := s.shutdown
	s.mu.Unlock()
	if down && req.Method() != protocol.MethodExit {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down")
	}
	if m, ok := s.methods[req.Method()]; ok {
		return m(s, ctx, req)
	}
	if _, call := req.(*jsonrpc2.Call); call {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method())
	}
	return nil, nil // an unknown notification ($/setTrace, ...) is ignored
}

// A method answers one method of the protocol: the result of a call, or
// nil for a notification.
type method func(s *Server, ctx context.Context, req jsonrpc2.Request) (any, error)

// withParams makes a method of f, which takes the request's params
// decoded as P; params that are not one are answered InvalidParams.
func withParams[P any](f func(s *Server, ctx context.Context, p *P) (any, error)) method {
	return func(s *Server, ctx context.Context, req jsonrpc2.Request) (any, error) {
		var p P
		if err := params(req, &p); err != nil {
			return nil, err
		}
		return f(s, ctx, &p)
	}
}

// methodTable is what the server answers, by method: the session's
// lifecycle, the documents' notifications, and the features. Serve builds
// it once for the session.
func methodTable() map[string]method {
	return map[string]method{
		protocol.MethodInitialize:  withParams((*Server).initializeOnce),
		protocol.MethodInitialized: (*Server).clientInitialized,
		protocol.MethodShutdown:    (*Server).shutDown,
		protocol.MethodExit:        (*Server).exit,

		protocol.MethodTextDocumentDidOpen: withParams(func(s *Server, _ context.Context, p *protocol.DidOpenTextDocumentParams) (any, error) {
			s.didOpen(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
			return nil, nil
		}),
		protocol.MethodTextDocumentDidChange: withParams(func(s *Server, _ context.Context, p *didChangeParams) (any, error) {
			s.didChange(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges)
			return nil, nil
		}),
		protocol.MethodTextDocumentDidClose: withParams(func(s *Server, _ context.Context, p *protocol.DidCloseTextDocumentParams) (any, error) {
			s.didClose(p.TextDocument.URI)
			return nil, nil
		}),
		protocol.MethodTextDocumentDidSave:            (*Server).filesChanged,
		protocol.MethodWorkspaceDidChangeWatchedFiles: (*Server).filesChanged,

		protocol.MethodTextDocumentCompletion: withParams(func(s *Server, ctx context.Context, p *protocol.CompletionParams) (any, error) {
			return s.completion(ctx, p.TextDocument.URI, p.Position)
		}),
		protocol.MethodTextDocumentHover: withParams(func(s *Server, ctx context.Context, p *protocol.HoverParams) (any, error) {
			return s.hover(ctx, p.TextDocument.URI, p.Position)
		}),
		protocol.MethodTextDocumentDefinition: withParams(func(s *Server, ctx context.Context, p *protocol.DefinitionParams) (any, error) {
			return s.definition(ctx, p.TextDocument.URI, p.Position)
		}),
		protocol.MethodTextDocumentDocumentSymbol: withParams(func(s *Server, ctx context.Context, p *protocol.DocumentSymbolParams) (any, error) {
			return s.symbols(ctx, p.TextDocument.URI)
		}),
		protocol.MethodTextDocumentCodeLens: withParams(func(s *Server, ctx context.Context, p *protocol.CodeLensParams) (any, error) {
			return s.codeLens(ctx, p.TextDocument.URI)
		}),
		protocol.MethodWorkspaceExecuteCommand: withParams((*Server).executeCommand),
	}
}

// didChangeParams are didChange's params, with the changes as the server
// applies them.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []change                                 `json:"contentChanges"`
}

// initializeOnce answers initialize, which the protocol allows once: a
// second would swap the library under the open documents.
func (s *Server) initializeOnce(_ context.Context, p *protocol.InitializeParams) (any, error) {
	s.mu.Lock()
	again := s.initialized
	s.initialized = true
	s.mu.Unlock()
	if again {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the server is initialized already")
	}
	return s.initialize(p), nil
}

// clientInitialized: the client has the answer to initialize; the
// library's variants are checked for the first time.
func (s *Server) clientInitialized(context.Context, jsonrpc2.Request) (any, error) {
	s.recheck(s.variants()...)
	return nil, nil
}

// shutDown answers shutdown: from now on only exit is answered.
func (s *Server) shutDown(context.Context, jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil, nil
}

// exit ends the session (Serve returns).
func (s *Server) exit(context.Context, jsonrpc2.Request) (any, error) {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil, nil
}

// filesChanged: files on disk changed (a save, or the workspace's
// watcher), so the library is read again and every variant checked.
func (s *Server) filesChanged(context.Context, jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
	s.recheck(s.variants()...)
	return nil, nil
}

// initialize finds the library and says what the server offers.
func (s *Server) initialize(p *protocol.InitializeParams) *protocol.InitializeResult {
	dir := s.opts.Root
	if dir == "" {
		for _, f := range p.WorkspaceFolders {
			if d, ok := localPath(f.URI); ok {
				dir = d
				break
			}
		}
	}
	if dir == "" && p.RootURI != "" {
		dir, _ = localPath(string(p.RootURI))
	}
	if dir == "" {
		dir = p.RootPath // older clients send only this
	}
	if root, ok := findLibrary(dir); ok {
		s.setRoot(root)
		s.log.Info("serving the library", "root", root)
	} else {
		s.log.Warn("no library working copy (templates/ and schemas/) in or around the workspace", "folder", dir)
	}
	return &protocol.InitializeResult{
		ServerInfo: &protocol.ServerInfo{Name: "promptsmith", Version: engine.Version()},
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{".", "$", "\"", ":"},
			},
			HoverProvider:          true,
			DefinitionProvider:     true,
			DocumentSymbolProvider: true,
			CodeLensProvider:       &protocol.CodeLensOptions{},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: []string{commandRender}},
		},
	}
}
