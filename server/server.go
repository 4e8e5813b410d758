// Package server is promptsmith's HTTP API: the same renders as the CLI, for
// runtimes in other languages. Every response of the API is JSON; errors
// are {"error": {"kind", "reason", ...}}, one engine.Error (errors.go), and
// the OpenAPI 3.1 document at /v1/openapi.json describes every request and
// response.
//
//	GET  /v1/variants                                 the variants, their descriptions and examples
//	GET  /v1/variants/{variant}/schema                the JSON Schema of a variant's input
//	GET  /v1/variants/{variant}/examples/{example}    an example input, as written
//	GET  /v1/variants/{variant}/examples/{example}/golden  the example's prompt beside its golden file (a working copy)
//	GET  /v1/variants/{variant}/lint                  what render lint finds in a variant
//	POST /v1/render/{variant}?max_tokens=N&tokens=ENC body: the input (JSON or YAML) → the Result
//	POST /v1/check/{variant}                          body: the input → {variant, ok, checks, ids, provenance}
//	POST /v1/extract?depth=N&variant=V                body: a rendered prompt → {depth, region, text}
//	GET  /v1/version                                  the program's version and the library's hash
//	GET  /v1/openapi.json                             the OpenAPI document
//	GET  /v1/events                                   server-sent events: the library swapped in or failed (StreamEvents)
//	GET  /metrics                                     Prometheus metrics
//	GET  /healthz
//	GET  /                                            a preview page for authors, built on the calls above
//
// A Server bounds the renders that run at once (MaxRenders, MaxQueue),
// the time one may take (RenderTimeout) and the bytes of request bodies it
// holds (MaxBody in each render slot), checks an optional bearer token
// (Token), answers only to its own names (AllowedHosts) and answers
// browsers of the origins in CORSOrigins alone. HTTPServer and Serve put
// it on a listener with timeouts, a minimum body rate, a connection limit
// in all and for each client, and a graceful shutdown.
package server

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/problem"
	"github.com/promptsmith/promptsmith/engine/verbatim"
)

//go:embed preview.html
var previewPage []byte

// DefaultMaxBody bounds a request body: a 1 MiB parent prompt with its
// payload fits several times over.
const DefaultMaxBody = 16 << 20

// DefaultRenderTimeout bounds the work on one render or check request,
// waiting for a slot included.
const DefaultRenderTimeout = 10 * time.Second

// Server serves one library; Swap replaces it (a reload) without dropping
// requests in flight. Set its fields before it serves its first request.
type Server struct {
	MaxBody int64
	// Record, when set, is called with every successful render before it is
	// answered (an audit store); an error fails the request.
	Record func(*engine.Variant, *engine.Result) error
	// Logger receives the server's own faults (500s) and failed reloads;
	// none are logged without it.
	Logger *slog.Logger
	// Token, when set, is the bearer token every request but /healthz must
	// carry in its Authorization header.
	Token string
	// CORSOrigins are the origins (scheme://host[:port]) whose pages may
	// call the API from a browser; "*" allows any. None by default.
	CORSOrigins []string
	// RenderTimeout bounds the work on one render, check or extraction,
	// waiting for a slot included (DefaultRenderTimeout; 0: no bound).
	RenderTimeout time.Duration
	// MaxRenders is how many renders run at once (GOMAXPROCS by default);
	// MaxQueue how many more may wait for a slot before the server answers
	// 503 (DefaultMaxQueue).
	MaxRenders, MaxQueue int
	// WorkingCopy is the folder the library was loaded from (render serve
	// --templates DIR), when it was: its testdata/golden holds the golden
	// files GET .../golden compares with and lint renders examples against.
	WorkingCopy string
	// Tokens is the encoding a render's ?max_tokens counts with when the
	// request names none (render serve --tokens).
	Tokens string
	// MaxEventStreams bounds the streams of GET /v1/events open at once
	// (DefaultMaxEventStreams).
	MaxEventStreams int
	// AllowedHosts are the names a request's Host may give besides the
	// loopback ones and the address the request came in on (render serve:
	// the host of --addr and each --allow-host); "*" allows any. Any other
	// Host is answered 421, so that a site rebound to the server's address
	// (DNS rebinding) cannot use it from a browser. See checkHost.
	AllowedHosts []string

	state    atomic.Pointer[state]
	metrics  *metrics
	mux      *http.ServeMux
	routes   []route
	gateOnce sync.Once
	gate     *gate
	// budgetOnce makes budget, the bytes of bodies held at once (bodies).
	budgetOnce sync.Once
	budget     *bodyBudget
	// bodyHook, when set (by a test), is called with 1 when a request
	// starts reading its body, in the budget, and with -1 when it gives its
	// room back.
	bodyHook func(delta int)
	events   events
	counters counters
	gen      atomic.Uint64
}

// state is the library served and what is made from it.
type state struct {
	lib     *engine.Library
	once    sync.Once
	openapi []byte
	err     error
	// failed is why the last reload failed altogether, when it did: lib
	// is the last library that loaded.
	failed error
	// gen counts the states the server has had, for the id of its event.
	gen  uint64
	lint lintCache
}

// route is one endpoint of the API.
type route struct {
	method, path string
	handle       http.HandlerFunc
}

// New returns a Server for lib.
func New(lib *engine.Library) *Server {
	s := &Server{
		MaxBody:         DefaultMaxBody,
		Logger:          slog.New(slog.DiscardHandler),
		RenderTimeout:   DefaultRenderTimeout,
		MaxRenders:      runtime.GOMAXPROCS(0),
		MaxQueue:        DefaultMaxQueue,
		MaxEventStreams: DefaultMaxEventStreams,
		metrics:         newMetrics(),
		mux:             http.NewServeMux(),
	}
	s.state.Store(&state{lib: lib})
	s.metrics.serving(lib)
	s.routes = []route{
		{"GET", "/v1/variants", s.variants},
		{"GET", "/v1/variants/{variant}/schema", s.schema},
		{"GET", "/v1/variants/{variant}/examples/{example}", s.example},
		{"GET", "/v1/variants/{variant}/examples/{example}/golden", s.golden},
		{"GET", "/v1/variants/{variant}/lint", s.lint},
		{"POST", "/v1/render/{variant}", s.render},
		{"POST", "/v1/check/{variant}", s.render},
		{"POST", "/v1/extract", s.extract},
		{"GET", "/v1/version", s.version},
		{"GET", "/v1/openapi.json", s.openapi},
		{"GET", "/v1/events", s.streamEvents},
		{"GET", "/metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}).ServeHTTP},
		{"GET", "/healthz", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, health{Status: "ok"})
		}},
		{"GET", "/{$}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(previewPage)
		}},
	}
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range s.routes {
		s.mux.HandleFunc(rt.method+" "+rt.path, rt.handle)
		if allowed[rt.path] == nil {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
		if rt.method == "GET" {
			allowed[rt.path] = append(allowed[rt.path], "HEAD")
		}
	}
	// A path the API has, asked with another method: 405 naming the
	// methods it has (OPTIONS answers with them alone).
	for _, p := range paths {
		allow := strings.Join(append(allowed[p], "OPTIONS"), ", ")
		s.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			writeJSONError(w, http.StatusMethodNotAllowed, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
				Reason: fmt.Sprintf("%s does not answer %s", r.URL.Path, r.Method),
				Hints:  []string{"use " + strings.Join(allowed[p], " or ")}})
		})
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
			Reason: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path),
			Hints:  []string{"the endpoints are listed in the OpenAPI document at /v1/openapi.json: " + endpointList(s.routes)}})
	})
	return s
}

func endpointList(routes []route) string {
	var list []string
	for _, rt := range routes {
		list = append(list, rt.method+" "+strings.TrimSuffix(rt.path, "{$}"))
	}
	return strings.Join(list, ", ")
}

// Swap replaces the library the server renders with, counts a reload (a
// failed one too when a variant of lib does not load: lib.Err) and tells
// the event streams.
func (s *Server) Swap(lib *engine.Library) {
	s.state.Store(&state{lib: lib, gen: s.gen.Add(1)})
	s.metrics.serving(lib)
	s.metrics.reloads.Inc()
	if lib.Err() != nil {
		s.metrics.reloadFailures.Inc()
	}
	s.events.notify()
}

// ReloadFailed counts a reload that failed: the previous library is still
// served. The caller says why, where its operator looks; the event
// streams say it too, until the next Swap.
func (s *Server) ReloadFailed(err error) {
	s.metrics.reloadFailures.Inc()
	for {
		old := s.state.Load()
		if s.state.CompareAndSwap(old, &state{lib: old.lib, failed: err, gen: s.gen.Add(1)}) {
			break
		}
	}
	s.events.notify()
}

// Registry is the Prometheus registry /metrics serves, the Server's own,
// for an embedding program to add its collectors to.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.registry }

func (s *Server) lib() *engine.Library { return s.state.Load().lib }

func (s *Server) renderGate() *gate {
	s.gateOnce.Do(func() { s.gate = newGate(s.MaxRenders, s.MaxQueue) })
	return s.gate
}

// ServeHTTP refuses a request not meant for this server or from a page
// that may not call it (guard), answers CORS preflights, checks the bearer
// token and routes the request, counting it by route and status. All of
// that before a byte of the body is read; an answer to a request whose
// body was not read whole closes the connection (dropUnread).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, body: watchBody(r)}
	if s.guard(sw, r) || s.cors(sw, r) || (r.URL.Path != "/healthz" && !s.authorized(sw, r)) {
		_, r.Pattern = s.mux.Handler(r) // answered already: only the route is wanted
	} else {
		s.mux.ServeHTTP(sw, r)
	}
	s.metrics.requests.WithLabelValues(r.Pattern, strconv.Itoa(sw.status())).Inc()
}

type variantInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Examples    []string `json:"examples"`
	// Error says why a variant of a working copy does not load (--templates);
	// Stale that it is served from its last good version (--watch).
	Error *engine.Error `json:"error,omitempty"`
	Stale bool          `json:"stale,omitempty"`
}

type health struct {
	Status string `json:"status"`
}

// versionInfo is the answer of /v1/version.
type versionInfo struct {
	Version      string `json:"version"`
	Library      string `json:"library"`
	LibraryShort string `json:"library_short"`
}

// checkReport is the answer of /v1/check: the outcome of each check, and
// the error naming the failed ones when the answer is 422.
type checkReport struct {
	Variant    string               `json:"variant"`
	OK         bool                 `json:"ok"`
	Checks     []engine.CheckResult `json:"checks"`
	IDs        map[string]string    `json:"ids,omitempty"`
	Provenance engine.Provenance    `json:"provenance"`
	Error      *engine.Error        `json:"error,omitempty"`
}

// extracted is the answer of /v1/extract.
type extracted struct {
	Depth  int    `json:"depth"`
	Region string `json:"region"`
	Text   string `json:"text"`
}

func (s *Server) variants(w http.ResponseWriter, r *http.Request) {
	lib := s.lib()
	out := []variantInfo{}
	for _, name := range lib.Names() {
		v, err := lib.Variant(name)
		if err != nil {
			out = append(out, variantInfo{Name: name, Examples: []string{}, Error: wireError(err)})
			continue
		}
		info := variantInfo{Name: name, Description: v.Description(), Examples: nonNil(v.Examples())}
		if stale := lib.Stale(name); stale != nil {
			info.Error, info.Stale = wireError(stale), true
		}
		out = append(out, info)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) schema(w http.ResponseWriter, r *http.Request) {
	lib := s.lib()
	v, err := lib.Variant(r.PathValue("variant"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	provenanceHeaders(w, lib, v)
	w.Header().Set("Content-Type", "application/schema+json")
	w.WriteHeader(http.StatusOK)
	w.Write(v.SchemaJSON())
}

// example returns an example input as its author wrote it (YAML or JSON).
func (s *Server) example(w http.ResponseWriter, r *http.Request) {
	v, err := s.lib().Variant(r.PathValue("variant"))
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

func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	p := s.lib().Provenance()
	writeJSON(w, http.StatusOK, versionInfo{Version: p.Version, Library: p.Library, LibraryShort: p.Short})
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	st := s.state.Load()
	st.once.Do(func() { st.openapi, st.err = s.document(st.lib) })
	if st.err != nil {
		s.writeError(w, r, &engine.Error{Kind: engine.KindInternal, Reason: "cannot build the OpenAPI document: " + st.err.Error(), Err: st.err})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(st.openapi)
}

// provenanceHeaders names the library and variant that answer a request.
func provenanceHeaders(w http.ResponseWriter, lib *engine.Library, v *engine.Variant) {
	p := lib.Provenance()
	h := w.Header()
	h.Set("X-Promptsmith-Library", p.Short)
	h.Set("X-Promptsmith-Library-Hash", p.Library)
	h.Set("X-Promptsmith-Variant-Hash", v.Hash())
	h.Set("X-Promptsmith-Version", p.Version)
}

// render answers /v1/render and /v1/check: read the body, wait for a slot,
// render, record, answer. The outcome is counted before the answer is
// written, so that a client that has its answer finds it in /metrics.
func (s *Server) render(w http.ResponseWriter, r *http.Request) {
	lib := s.lib()
	name := r.PathValue("variant")
	v, err := lib.Variant(name)
	if err != nil {
		s.metrics.renders.WithLabelValues("", outcomeInputError).Inc()
		s.writeError(w, r, err)
		return
	}
	provenanceHeaders(w, lib, v)
	code, answer, outcome := s.renderAnswer(w, r, lib, v)
	s.metrics.renders.WithLabelValues(name, outcome).Inc()
	if err, ok := answer.(error); ok {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, code, answer)
}

// renderAnswer renders a request's body and returns the status, the body
// of the answer (an error for writeError) and the outcome.
func (s *Server) renderAnswer(w http.ResponseWriter, r *http.Request, lib *engine.Library, v *engine.Variant) (int, any, string) {
	checkOnly := r.Pattern == "POST /v1/check/{variant}"
	opts, tc, err := s.renderOptions(r)
	if err != nil {
		return 0, err, outcomeInputError
	}
	body, release, err := s.body(w, r, inputBody)
	if err != nil {
		return 0, err, bodyOutcome(err)
	}
	defer release()
	ctx, cancel := s.renderContext(r.Context())
	defer cancel()
	if err := s.enter(ctx); err != nil {
		return 0, answerError(ctx, err), stopOutcome(ctx, err)
	}
	defer s.leave()
	start := time.Now()
	res, err := lib.Render(ctx, v.Name(), engine.Input{Name: "body", Data: body}, opts...)
	countTokens(res, tc)
	s.metrics.duration.WithLabelValues(v.Name()).Observe(time.Since(start).Seconds())
	if res != nil {
		s.metrics.bytes.WithLabelValues(v.Name()).Add(float64(len(res.Text)))
		nonNilResult(res)
	}
	switch {
	case err != nil && res == nil:
		if stop := stoppedError(ctx, err); stop != nil {
			return 0, stop, stopOutcome(ctx, err)
		}
		if status(err) < 500 {
			return 0, err, outcomeInputError
		}
		return 0, err, outcomeInternalError
	case err != nil && checkOnly:
		return http.StatusUnprocessableEntity, checkReport{Variant: res.Variant, OK: false, Checks: res.Checks, IDs: res.IDs,
			Provenance: res.Provenance, Error: checkError(res, err)}, outcomeCheckFailure
	case err != nil:
		return http.StatusUnprocessableEntity, checkFailure{Error: checkError(res, err), Result: res}, outcomeCheckFailure
	case checkOnly:
		return http.StatusOK, checkReport{Variant: res.Variant, OK: true, Checks: res.Checks, IDs: res.IDs, Provenance: res.Provenance}, outcomeOK
	}
	if s.Record != nil {
		s.metrics.auditWrites.Inc()
		if err := s.Record(v, res); err != nil {
			s.metrics.auditFailures.Inc()
			return 0, &engine.Error{Kind: engine.KindInternal, Reason: "cannot record the prompt in the audit store; the server's log says why", Err: err}, outcomeInternalError
		}
	}
	return http.StatusOK, res, outcomeOK
}

// renderContext bounds a request's render by RenderTimeout, with a cause
// that tells its expiry from the client leaving.
func (s *Server) renderContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.RenderTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, s.RenderTimeout, errRenderTimeout)
}

// enter waits for a render slot.
func (s *Server) enter(ctx context.Context) error {
	var since time.Time
	err := s.renderGate().enter(ctx,
		func() { since = time.Now(); s.metrics.queued.Inc() },
		func() { s.metrics.queued.Dec(); s.metrics.wait.Observe(time.Since(since).Seconds()) })
	if err == nil {
		s.metrics.inFlight.Inc()
	}
	return err
}

func (s *Server) leave() {
	s.metrics.inFlight.Dec()
	s.renderGate().leave()
}

// waitError is the error of a request that got no render slot.
func answerError(ctx context.Context, err error) error {
	if stop := stoppedError(ctx, err); stop != nil {
		return stop
	}
	return err
}

// stopOutcome is the outcome of a request the server or its client
// stopped (see stoppedError).
func stopOutcome(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, errBusy):
		return outcomeRejected
	case context.Cause(ctx) == errRenderTimeout:
		return outcomeTimeout
	}
	return outcomeCancelled
}

func (s *Server) extract(w http.ResponseWriter, r *http.Request) {
	depth := 1
	if d := r.URL.Query().Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 {
			s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Parameter: "depth", Reason: fmt.Sprintf("depth %s is not a whole number of 1 or more", problem.Quote(d))})
			return
		}
		depth = n
	}
	vb, err := s.lib().VerbatimRegion(r.URL.Query().Get("variant"), r.URL.Query().Get("region"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	body, release, err := s.body(w, r, promptBody)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer release()
	ctx, cancel := s.renderContext(r.Context())
	defer cancel()
	if err := s.enter(ctx); err != nil {
		s.writeError(w, r, answerError(ctx, err))
		return
	}
	defer s.leave()
	text, err := verbatim.Of(vb).Extract(string(body), depth)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, extracted{Depth: depth, Region: vb.Name, Text: text})
}

// writeError answers with an error and the status its kind calls for; the
// server's own faults are logged too, since nobody else will act on them.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	switch {
	case code == http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	case code >= 500:
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", code, "error", err.Error()}
		if e := engine.AsError(err); e.Err != nil && !strings.Contains(e.Reason, e.Err.Error()) {
			attrs = append(attrs, "cause", e.Err.Error()) // what the body does not say
		}
		s.Logger.Error("request failed", attrs...)
	}
	writeJSONError(w, code, err)
}

func writeJSONError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, errorBody{Error: wireError(err)})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// nonNilResult makes a Result's lists [] rather than null, as the OpenAPI
// document promises.
func nonNilResult(res *engine.Result) {
	res.Sections = nonNil(res.Sections)
	res.Outline = nonNil(res.Outline)
	res.Checks = nonNil(res.Checks)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// statusWriter remembers the status a handler answered with, and closes
// the connection after an answer to a request whose body it did not read
// whole (dropUnread).
type statusWriter struct {
	http.ResponseWriter
	code int
	body *bodyWatch // nil without a body
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
		dropUnread(w.ResponseWriter, w.body)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
		dropUnread(w.ResponseWriter, w.body)
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
