package server

import (
	"errors"
	"net/http"

	"github.com/promptsmith/promptsmith/engine"
)

// requestError is a problem with an HTTP request itself, or the server's own
// fault, rather than with a render: what it concerns is a URL path or a
// query parameter. It is written in the same body as engine errors:
// {"error": {"kind", "reason", ...}}.
type requestError struct {
	Kind      engine.Kind `json:"kind"`
	Reason    string      `json:"reason"`
	Path      string      `json:"path,omitempty"`      // the URL path asked for
	Parameter string      `json:"parameter,omitempty"` // the query parameter at fault
	Hints     []string    `json:"hints,omitempty"`
	err       error
}

func (e *requestError) Error() string { return e.Reason }
func (e *requestError) Unwrap() error { return e.err }

// status maps an error to an HTTP status: the caller's mistakes are 4xx;
// the library's and the server's own are 500.
func status(err error) int {
	var re *requestError
	if errors.As(err, &re) {
		if re.Kind == engine.KindInternal {
			return http.StatusInternalServerError
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
