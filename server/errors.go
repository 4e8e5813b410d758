package server

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
)

// KindUnavailable is the kind of an error the server answers with 503: it
// cannot take the request now (every render slot and queue place is taken,
// or the render ran past --render-timeout). Retry after Retry-After seconds.
const KindUnavailable engine.Kind = "unavailable"

// requestError is a problem with an HTTP request itself, or the server's own
// fault, rather than with a render: what it concerns is a URL path or a
// query parameter. It is written in the same body as engine errors:
// {"error": {"kind", "reason", ...}}.
type requestError struct {
	Kind      engine.Kind
	Reason    string
	Path      string // the URL path asked for
	Parameter string // the query parameter at fault
	Hints     []string
	status    int // the HTTP status, when the kind does not say it
	err       error
}

// Error is the reason with its cause, for the server's log; the body has
// the reason alone.
func (e *requestError) Error() string {
	if e.err != nil {
		return e.Reason + ": " + e.err.Error()
	}
	return e.Reason
}
func (e *requestError) Unwrap() error { return e.err }

// apiError is the error member of every error body. It holds every member
// of an engine error (positions in the library made relative to it), the
// members of a request error (path, parameter) and, for a failed check,
// the check and the section it concerns. One type for all keeps the body
// one shape, described once in the OpenAPI document.
type apiError struct {
	Kind      engine.Kind `json:"kind"`
	Reason    string      `json:"reason"`
	Field     string      `json:"field,omitempty"`
	Position  string      `json:"position,omitempty"`
	Variant   string      `json:"variant,omitempty"`
	Example   string      `json:"example,omitempty"`
	Level     int         `json:"level,omitempty"`
	Check     string      `json:"check,omitempty"`
	Section   string      `json:"section,omitempty"`
	Path      string      `json:"path,omitempty"`
	Parameter string      `json:"parameter,omitempty"`
	Hints     []string    `json:"hints,omitempty"`
	Also      []*apiError `json:"also,omitempty"`
}

// errorBody is the body of every error response.
type errorBody struct {
	Error *apiError `json:"error"`
}

// checkFailure is the body of a render whose prompt failed a check: the
// error, which names each failed check, and the Result, so that a caller
// sees the prompt it would have had.
type checkFailure struct {
	Error  *apiError      `json:"error"`
	Result *engine.Result `json:"result"`
}

// wireError turns any error into the error member of a body.
func wireError(err error) *apiError {
	var re *requestError
	if errors.As(err, &re) {
		return &apiError{Kind: re.Kind, Reason: re.Reason, Path: re.Path, Parameter: re.Parameter, Hints: re.Hints}
	}
	return fromEngine(engine.AsError(err))
}

func fromEngine(e *engine.Error) *apiError {
	e = e.Bounded() // an error quotes a bounded part of the input
	out := &apiError{Kind: e.Kind, Reason: e.Reason, Field: e.Field, Position: relPosition(e.Position, e.Variant),
		Variant: e.Variant, Example: e.Example, Level: e.Level, Hints: e.Hints}
	for _, a := range e.Also {
		out.Also = append(out.Also, fromEngine(a))
	}
	return out
}

// checkError is the error of a render whose checks failed: the engine's
// error, and one entry in also for each failed check, naming the check and,
// where the engine could tell, the section that wrote the offending text.
func checkError(res *engine.Result, err error) *apiError {
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
		a := &apiError{Kind: engine.KindCheck, Check: c.Check, Reason: c.Message, Variant: out.Variant, Position: out.Position}
		if a.Reason == "" {
			a.Reason = "the check failed"
		}
		a.Section = c.Section
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

// status maps an error to an HTTP status: the caller's mistakes are 4xx;
// the library's and the server's own are 500; a server that cannot take
// the request now 503.
func status(err error) int {
	var re *requestError
	if errors.As(err, &re) {
		switch {
		case re.status != 0:
			return re.status
		case re.Kind == engine.KindInternal:
			return http.StatusInternalServerError
		case re.Kind == KindUnavailable:
			return http.StatusServiceUnavailable
		}
		return http.StatusBadRequest
	}
	e := engine.AsError(err)
	switch e.Kind {
	case engine.KindInput, engine.KindCheck:
		return http.StatusUnprocessableEntity
	case engine.KindTemplate, engine.KindInternal:
		return http.StatusInternalServerError
	}
	if errors.Is(e, engine.ErrUnknownVariant) {
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// errRenderTimeout is the cause of a render context whose --render-timeout
// passed, to tell it from the engine's own limit and from a client that left.
var errRenderTimeout = errors.New("render timeout")

// errBusy is what gate.enter returns when no place in the queue is left.
var errBusy = errors.New("busy")

// stoppedError says why a render stopped early, when the server or its
// client stopped it rather than the engine: nil otherwise.
func stoppedError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, errBusy):
		return &requestError{Kind: KindUnavailable, Reason: "every render slot and queue place is taken",
			Hints: []string{"retry after the seconds in Retry-After; an operator can raise --max-renders or --max-queue"}}
	case context.Cause(ctx) == errRenderTimeout:
		return &requestError{Kind: KindUnavailable, Reason: "the render did not finish within the server's --render-timeout", err: err,
			Hints: []string{"retry after the seconds in Retry-After; a very large input may need an operator to raise --render-timeout"}}
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return &requestError{Kind: KindUnavailable, Reason: "the client went away before the render finished", err: err}
	}
	return nil
}
