package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"go.opentelemetry.io/otel/trace"
)

// RequestIDHeader is the header a request's id comes in (from a proxy
// that made one) and goes back in: every log line of the request names it.
const RequestIDHeader = "X-Request-Id"

// requestIDKey is the context key of a request's id.
type requestIDKey struct{}

// RequestID is the id of the request ctx belongs to, "" outside one: for
// an embedding program's log lines about a request the server handles.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// requestID is the id a request came with, when it is one a log can
// quote safely (1 to 128 letters, digits and ._:-), else a new random one.
func requestID(r *http.Request) string {
	if id := r.Header.Get(RequestIDHeader); safeID(id) {
		return id
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func safeID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// logRequest writes the one line a request is logged with, at the level
// its status calls for: the server's own faults (5xx) at ERROR, the
// caller's mistakes (4xx) at WARN, the rest at INFO, but probes and
// scrapes that went well at DEBUG, so that a load balancer probing every
// second does not fill the log. The line names the request id, the route,
// the status, the time taken (duration_ms, in milliseconds), the trace
// and span ids when the request is traced, and, for an error, its reason
// and cause.
func (s *Server) logRequest(r *http.Request, route string, sw *statusWriter, took time.Duration) {
	code := sw.status()
	level := slog.LevelInfo
	switch {
	case code >= 500:
		level = slog.LevelError
	case code >= 400:
		level = slog.LevelWarn
	case isProbe(r.URL.Path) || route == "GET /metrics":
		level = slog.LevelDebug
	}
	ctx := r.Context()
	if !s.Logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("request_id", RequestID(ctx)),
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
		slog.Int("status", code), slog.Float64("duration_ms", float64(took.Microseconds())/1000),
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() { // the request's span, when traced
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	if sw.err != nil {
		e := engine.AsError(sw.err)
		attrs = append(attrs, slog.String("kind", string(e.Kind)), slog.String("error", e.Error()))
		if e.Err != nil {
			attrs = append(attrs, slog.String("cause", e.Err.Error())) // what the body does not say
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sw.ids)) {
		attrs = append(attrs, slog.String(name, sw.ids[name]))
	}
	s.Logger.LogAttrs(ctx, level, "request", attrs...)
}

// noteError and noteIDs tell the request's log line what it answered: the
// error (writeError) and the ids of the prompt rendered.
func noteError(w http.ResponseWriter, err error) {
	if sw, ok := w.(*statusWriter); ok {
		sw.err = err
	}
}

func noteIDs(w http.ResponseWriter, ids map[string]string) {
	if sw, ok := w.(*statusWriter); ok {
		sw.ids = ids
	}
}
