// Package server is promptsmith's HTTP API: the same renders as the CLI, for
// runtimes in other languages. Every response is JSON; errors are
// {"error": {"kind", "reason", "field", "position", "hints"}}.
//
//	GET  /v1/variants                 the variants, their descriptions and examples
//	GET  /v1/variants/{variant}/schema  the JSON Schema of a variant's input
//	POST /v1/render/{variant}         body: the input (JSON or YAML) → the Result
//	POST /v1/check/{variant}          body: the input → {ok, checks, ids}
//	POST /v1/extract?depth=N&variant=V  body: a rendered prompt → {text}
//	GET  /healthz
//	GET  /                            a preview page for authors, built on the calls above
package server

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
)

//go:embed preview.html
var previewPage []byte

// DefaultMaxBody bounds a request body: a 1 MiB parent prompt with its
// payload fits several times over.
const DefaultMaxBody = 16 << 20

// Server serves one library; Swap replaces it (a reload) without dropping
// requests in flight.
type Server struct {
	lib     atomic.Pointer[engine.Library]
	MaxBody int64
	// Record, when set, is called with every successful render before it is
	// answered (an audit store); an error fails the request.
	Record func(*engine.Variant, *engine.Result) error
	// Logger receives the server's own faults (500s); none are logged without it.
	Logger *slog.Logger
	mux    *http.ServeMux
}

// New returns a Server for lib.
func New(lib *engine.Library) *Server {
	s := &Server{MaxBody: DefaultMaxBody, Logger: slog.New(slog.DiscardHandler), mux: http.NewServeMux()}
	s.lib.Store(lib)
	s.mux.HandleFunc("GET /v1/variants", s.variants)
	s.mux.HandleFunc("GET /v1/variants/{variant}/schema", s.schema)
	s.mux.HandleFunc("GET /v1/variants/{variant}/examples/{example}", s.example)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(previewPage)
	})
	s.mux.HandleFunc("POST /v1/render/{variant}", s.render)
	s.mux.HandleFunc("POST /v1/check/{variant}", s.render)
	s.mux.HandleFunc("POST /v1/extract", s.extract)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, &requestError{Kind: engine.KindUsage, Path: r.URL.Path,
			Reason: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path),
			Hints:  []string{"the endpoints are GET /v1/variants, GET /v1/variants/{variant}/schema, GET /v1/variants/{variant}/examples/{example}, POST /v1/render/{variant}, POST /v1/check/{variant}, POST /v1/extract, and the preview page at /"}})
	})
	return s
}

// Swap replaces the library the server renders with.
func (s *Server) Swap(lib *engine.Library) { s.lib.Store(lib) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) variants(w http.ResponseWriter, r *http.Request) {
	lib := s.lib.Load()
	type entry struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Examples    []string `json:"examples"`
	}
	out := []entry{}
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		out = append(out, entry{name, v.Description(), v.Examples()})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) schema(w http.ResponseWriter, r *http.Request) {
	v, err := s.lib.Load().Variant(r.PathValue("variant"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.WriteHeader(http.StatusOK)
	w.Write(v.SchemaJSON())
}

// example returns an example input as its author wrote it (YAML or JSON).
func (s *Server) example(w http.ResponseWriter, r *http.Request) {
	v, err := s.lib.Load().Variant(r.PathValue("variant"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	in, err := v.Example(r.PathValue("example"))
	if err != nil {
		writeJSONError(w, http.StatusNotFound, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(in.Data)
}

func (s *Server) render(w http.ResponseWriter, r *http.Request) {
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	lib := s.lib.Load()
	res, err := lib.Render(r.Context(), r.PathValue("variant"), engine.Input{Name: "body", Data: body})
	checkOnly := r.Pattern == "POST /v1/check/{variant}"
	if err == nil && !checkOnly && s.Record != nil {
		v, _ := lib.Variant(res.Variant)
		if rerr := s.Record(v, res); rerr != nil {
			s.writeError(w, r, &requestError{Kind: engine.KindInternal, Reason: "cannot record the prompt: " + rerr.Error(), err: rerr})
			return
		}
	}
	switch {
	case res == nil:
		s.writeError(w, r, err)
	case checkOnly:
		status := http.StatusOK
		if err != nil {
			status = http.StatusUnprocessableEntity
		}
		writeJSON(w, status, map[string]any{"variant": res.Variant, "ok": res.OK(), "checks": res.Checks, "ids": res.IDs})
	case err != nil:
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": engine.AsError(err), "result": res})
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

func (s *Server) extract(w http.ResponseWriter, r *http.Request) {
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	depth := 1
	if d := r.URL.Query().Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 {
			s.writeError(w, r, &requestError{Kind: engine.KindUsage, Parameter: "depth", Reason: fmt.Sprintf("depth %q is not a whole number of 1 or more", d)})
			return
		}
		depth = n
	}
	vb, err := s.lib.Load().VerbatimRegion(r.URL.Query().Get("variant"), r.URL.Query().Get("region"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	text, err := verbatim.Of(vb).Extract(string(body), depth)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"depth": depth, "region": vb.Name, "text": text})
}

func (s *Server) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		e := &requestError{Kind: engine.KindUsage, Reason: "cannot read the request body: " + err.Error()}
		if errors.As(err, &tooBig) {
			e.Reason = fmt.Sprintf("the request body is over %d bytes", s.MaxBody)
			e.Hints = []string{"start the server with a larger --max-body"}
			writeJSONError(w, http.StatusRequestEntityTooLarge, e)
			return nil, false
		}
		s.writeError(w, r, e)
		return nil, false
	}
	return data, true
}

// writeError answers with an error and the status its kind calls for; the
// server's own faults are logged too, since nobody else will act on them.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	if code >= 500 {
		s.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", code, "error", err.Error())
	}
	writeJSONError(w, code, err)
}

func writeJSONError(w http.ResponseWriter, code int, err error) {
	var body any = err
	var re *requestError
	if !errors.As(err, &re) {
		body = engine.AsError(err)
	}
	writeJSON(w, code, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
