package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
)

// Every error the server answers with is an engine.Error, the project's one
// error type, in a body {"error": {"kind", "reason", ...}}. Its HTTP status
// comes from status alone: its kind, or, for a problem with the request
// itself, the cause it wraps.
var (
	errUnauthorized = errors.New("unauthorized")           // 401
	errForbidden    = errors.New("forbidden")              // 403
	errNotFound     = errors.New("not found")              // 404
	errMethod       = errors.New("method not allowed")     // 405
	errSlowBody     = errors.New("request body too slow")  // 408
	errTooLarge     = errors.New("request body too large") // 413
	errMediaType    = errors.New("unsupported media type") // 415
	errMisdirected  = errors.New("misdirected request")    // 421
)

// errorBody is the body of every error response; Stale says why, when
// the answer comes from a variant's last good version (stale.go).
type errorBody struct {
	Error *engine.Error `json:"error"`
	Stale *engine.Error `json:"stale,omitempty"`
}

// wireError is err as a body says it: cut to size (an error quotes a
// bounded part of the input), with positions in the library made relative
// to it.
func wireError(err error) *engine.Error {
	return relative(engine.AsError(err).Bounded())
}

// relative is a copy of e whose positions, and those of the problems it
// lists, do not name the server's disk (relPosition); nor does its
// reason where it quotes its own position ("{{if}} opened at <position>").
func relative(e *engine.Error) *engine.Error {
	c := *e
	c.Position = relPosition(e.Position, e.Variant)
	if c.Position != e.Position && c.Position != "" {
		c.Reason = strings.ReplaceAll(c.Reason, e.Position, c.Position)
	}
	c.Also = make([]*engine.Error, len(e.Also))
	for i, a := range e.Also {
		c.Also[i] = relative(a)
	}
	if len(c.Also) == 0 {
		c.Also = nil
	}
	return &c
}

// checkError is the error of a render whose checks failed: the engine's
// error, and one entry in also for each failed check, naming the check and,
// where the engine could tell, the section that wrote the offending text.
func checkError(res *engine.Result, err error) *engine.Error {
	out := wireError(err)
	if out.Variant == "" {
		out.Variant = res.Variant
	}
	if out.Position == "" {
		out.Position = "templates/" + res.Variant + "/prompt.yaml"
	}
	for _, c := range res.Checks {
		if c.OK {
			continue
		}
		a := &engine.Error{Kind: engine.KindCheck, Check: c.Check, Reason: c.Message, Variant: out.Variant, Position: out.Position, Section: c.Section}
		if a.Reason == "" {
			a.Reason = "the check failed"
		}
		out.Also = append(out.Also, a)
	}
	return out
}

// relPosition keeps a position in the library from naming the server's
// disk: a library loaded from a folder (--templates DIR) gives absolute
// positions, which become relative to the library's root
// ("templates/<variant>/prompt.yaml:3"). An absolute position outside any
// library folder is left out; relative ones ("body:1:12") stay as they are.
func relPosition(pos, variant string) string {
	if pos == "" || !(filepath.IsAbs(pos) || strings.HasPrefix(pos, "/") || strings.HasPrefix(pos, `\`)) {
		return pos
	}
	p := filepath.ToSlash(pos)
	if variant != "" {
		if i := strings.LastIndex(p, "/templates/"+variant+"/"); i >= 0 {
			return p[i+1:]
		}
	}
	for _, dir := range []string{"/templates/", "/schemas/"} {
		if i := strings.LastIndex(p, dir); i >= 0 {
			return p[i+1:]
		}
	}
	return ""
}

// causeStatus is the HTTP status of a request's problem with that cause.
type causeStatus struct {
	cause error
	code  int
}

// statusOf gives the HTTP status of the problems with a request itself, by
// the cause they wrap.
func statusOf() []causeStatus {
	return []causeStatus{
		{errUnauthorized, http.StatusUnauthorized},
		{errForbidden, http.StatusForbidden},
		{errNotFound, http.StatusNotFound},
		{engine.ErrUnknownVariant, http.StatusNotFound},
		{audit.ErrNotFound, http.StatusNotFound},
		{labels.ErrUnknownLabel, http.StatusNotFound},
		{labels.ErrConflict, http.StatusConflict},
		{labels.ErrFailing, http.StatusServiceUnavailable},
		{errMethod, http.StatusMethodNotAllowed},
		{errSlowBody, http.StatusRequestTimeout},
		{errTooLarge, http.StatusRequestEntityTooLarge},
		{errMediaType, http.StatusUnsupportedMediaType},
		{errMisdirected, http.StatusMisdirectedRequest},
	}
}

// status maps an error to an HTTP status, the one place that does: the
// caller's mistakes are 4xx; the library's and the server's own are 500; a
// server that cannot take the request now 503.
func status(err error) int {
	e := engine.AsError(err)
	for _, s := range statusOf() {
		if errors.Is(e.Err, s.cause) { // the error's own cause: not one of the problems it lists
			return s.code
		}
	}
	switch e.Kind {
	case engine.KindInput, engine.KindCheck:
		return http.StatusUnprocessableEntity
	case engine.KindTemplate, engine.KindInternal, engine.KindIntegrity:
		return http.StatusInternalServerError
	case engine.KindUnavailable, engine.KindCancelled:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// The causes of a request the server or its client stopped, which its
// error wraps: each answers 503 and is a render outcome of its own
// (outcomeOf).
var (
	// errBusy is what gate.enter returns when no place in the queue is left.
	errBusy = errors.New("busy")
	// errRenderTimeout is the cause of a render context whose
	// --render-timeout passed, to tell it from the engine's own limit and
	// from a client that left.
	errRenderTimeout = errors.New("render timeout")
	// errClientGone: the client went away before it was answered.
	errClientGone = errors.New("client gone")
)

// stoppedError says why a render stopped early, when the server or its
// client stopped it rather than the engine: nil otherwise.
func stoppedError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, errBusy):
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "every render slot and queue place is taken",
			Hints: []string{"retry after the seconds in Retry-After; an operator can raise --max-renders or --max-queue"}, Err: errBusy}
	case context.Cause(ctx) == errRenderTimeout:
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "the render did not finish within the server's --render-timeout",
			Hints: []string{"retry after the seconds in Retry-After; a very large input may need an operator to raise --render-timeout"}, Err: fmt.Errorf("%w: %w", errRenderTimeout, err)}
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "the client went away before the render finished", Err: fmt.Errorf("%w: %w", errClientGone, err)}
	}
	return nil
}

// writeError answers with an error and the status its kind calls for
// (status): the one way the server answers an error. A 503 says when to
// come back; the request's log line says the error and its cause, at
// ERROR for the server's own faults (logRequest).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeStaleError(w, r, err, nil)
}

// writeStaleError is writeError for a request answered from a variant's
// last good version: stale, when not nil, says why, in the body as the
// header does.
func (s *Server) writeStaleError(w http.ResponseWriter, r *http.Request, err error, stale *engine.Error) {
	code := status(err)
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	noteError(w, err) // logged with the request (logRequest)
	writeJSON(w, code, errorBody{Error: wireError(err), Stale: stale})
}

// notFound is err, the engine's word that something named in the path does
// not exist (an example), answered 404 rather than as a mistake in the call.
func notFound(err error) error {
	e := *engine.AsError(err)
	e.Err = errors.Join(errNotFound, e.Err)
	return &e
}
