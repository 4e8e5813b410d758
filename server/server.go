package server

import (
	"context"
	"golang.org/x/sync/singleflight"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
	"go.opentelemetry.io/otel/trace"
)

// DefaultMaxBody bounds a request body: a 1 MiB parent prompt with its
// payload fits several times over.
const DefaultMaxBody = 16 << 20

// Server serves one library; Swap replaces it (a reload) without dropping
// requests in flight. Set its fields before it serves its first request.
type Server struct {
	MaxBody int64
	// Audit, when set, records every prompt rendered before it is
	// answered; a prompt it cannot record is answered 503, never
	// unrecorded. /readyz asks it whether it answers, and GET
	// /v1/audit/{key} reads it.
	Audit AuditStore
	// ReadyTimeout bounds the audit store's answer to /readyz
	// (DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// Tracer, when set, traces each request, its render and each stage of
	// it (trace.go); nil traces nothing. render serve makes one from the
	// OTEL_* environment variables, with an OTLP exporter; a program of its
	// own passes its TracerProvider's.
	Tracer trace.Tracer
	// Logger receives the server's own faults (500s) and failed reloads;
	// none are logged without it.
	Logger *slog.Logger
	// Token, when set, is the bearer token every request but the probes must
	// carry in its Authorization header.
	Token string
	// CORSOrigins are the origins (scheme://host[:port]) whose pages may
	// call the API from a browser; "*" allows any. None by default.
	CORSOrigins []string
	// RenderTimeout bounds the work on one render, check or extraction,
	// waiting for room for its body and for a slot included
	// (DefaultRenderTimeout; 0: no bound).
	RenderTimeout time.Duration
	// MaxRenders is how many renders run at once (GOMAXPROCS by default);
	// MaxQueue how many more may wait for a slot before the server answers
	// 503 (DefaultMaxQueue).
	MaxRenders, MaxQueue int
	// WorkingCopy is the folder the library was loaded from (render serve
	// --templates DIR), when it was: its testdata/golden holds the golden
	// files GET .../golden compares with and lint renders examples against.
	WorkingCopy string
	// Tokens is the encoding a render counts tokens with, and its
	// ?max_tokens fits with, when the request names none (render serve
	// --tokens); "": a render counts only when asked (?tokens=).
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
	// Labels, when set, is the registry of the labels the server serves
	// (render serve --repo): a request is answered from the library of
	// the label it names (labels.go), and the library New was given is
	// the default label's, which LabelRefreshed keeps current.
	Labels *labels.Registry
	// AuditInputs makes the audit store keep each render's input, as
	// canonical JSON, and the budget it was rendered under, so that the
	// prompt can be rendered again (render audit replay). Off by default:
	// inputs hold what callers send, personal data included.
	AuditInputs bool

	state   atomic.Pointer[state]
	metrics *metrics
	// prefixes are the last cached prefixes rendered (cacheprefix.go).
	prefixes *prefixes
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
	// slotHook, when set (by a test), is called by each render in its
	// slot, to hold the slot as long as the test wants.
	slotHook func()
	events   events
	counters counters
	gen      atomic.Uint64
	// draining is set from Drain on: /readyz answers 503.
	draining atomic.Bool
	// pings lets the probes that arrive while the audit store is asked
	// share its answer: /readyz needs no token, and a flood of probes
	// asks the database one question at a time.
	pings singleflight.Group
	// reloads coalesces the reloads asked while one runs (reloads.go).
	reloads reloads
	// labelFailures holds, by label, the failure last told of it
	// (LabelRefreshed), "" once it serves its ref again.
	labelFailures sync.Map
	// labelStates holds, by label, the state of the library it serves
	// (labelState).
	labelStates sync.Map
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
	// origins are the provenances of the libraries that loaded the
	// variants lib serves from their last good version (originsOf).
	origins map[string]engine.Provenance
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
		prefixes:        newPrefixes(maxPrefixKeys),
	}
	s.state.Store(&state{lib: lib})
	s.metrics.serving("", lib)
	s.metrics.registry.MustRegister(newPoolCollector(s))
	s.routes = s.routeTable()
	s.mux = s.newMux()
	return s
}

// Swap replaces the library the server renders with, counts a reload (a
// failed one too when a variant of lib does not load: lib.Err) and tells
// the event streams.
func (s *Server) Swap(lib *engine.Library) {
	for {
		old := s.state.Load()
		if s.state.CompareAndSwap(old, &state{lib: lib, gen: s.gen.Add(1), origins: originsOf(lib, old)}) {
			break
		}
	}
	if s.Labels == nil { // LabelRefreshed says what each label serves
		s.metrics.serving("", lib)
	}
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
		if s.state.CompareAndSwap(old, &state{lib: old.lib, failed: err, gen: s.gen.Add(1), origins: old.origins}) {
			break
		}
	}
	s.events.notify()
}

// Registry is the Prometheus registry /metrics serves, the Server's own,
// for an embedding program to add its collectors to.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.registry }

// Library is the library the server renders with now.
func (s *Server) Library() *engine.Library { return s.lib() }

func (s *Server) lib() *engine.Library { return s.state.Load().lib }

// ServeHTTP refuses a request that repeats a parameter or header
// (refuseRepeats), one not meant for this server or from a page that may
// not call it (guard), answers CORS preflights, checks the bearer
// token and routes the request, counting it by route and status. All of
// that before a byte of the body is read; an answer to a request whose
// body was not read whole closes the connection (dropUnread).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := requestID(r)
	w.Header().Set(RequestIDHeader, id)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
	sw := &statusWriter{ResponseWriter: w, body: watchBody(r)}
	if s.draining.Load() { // keep-alive clients reconnect, to another replica
		w.Header().Set("Connection", "close")
	}
	ctx, end := s.requestSpan(r)
	r = s.withShare(r.WithContext(ctx))
	if s.refuseRepeats(sw, r) || s.guard(sw, r) || s.cors(sw, r) || (!isProbe(r.URL.Path) && !s.authorized(sw, r)) {
		_, r.Pattern = s.mux.Handler(r) // answered already: only the route is wanted
	} else {
		s.mux.ServeHTTP(sw, r)
	}
	route := r.Pattern
	if route == "/" { // noEndpoint: no route of the API
		route = ""
	}
	code := strconv.Itoa(sw.status())
	took := time.Since(start)
	end(route, sw.status())
	s.metrics.requests.WithLabelValues(route, code).Inc()
	s.metrics.requestDuration.WithLabelValues(route, code).Observe(took.Seconds())
	s.logRequest(r, route, sw, took)
}

// statusWriter remembers the status a handler answered with, and closes
// the connection after an answer to a request whose body it did not read
// whole (dropUnread).
type statusWriter struct {
	http.ResponseWriter
	code int
	body *bodyWatch        // nil without a body
	err  error             // the error answered, for the log line (noteError)
	ids  map[string]string // the ids of the prompt answered (noteIDs)
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
