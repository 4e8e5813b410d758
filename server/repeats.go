package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// A request that says one thing twice is ambiguous: ?label=a&label=b, or
// two X-Promptsmith-Label headers, would be served by the first value
// here while a proxy, a cache or a log that reads the last sees another
// request. Such a request is refused, naming what it repeats, before
// anything of it is read; so is a query that does not parse, whose
// parameters would otherwise be dropped without a word.

// singleHeaders are the headers the server reads one value of.
func singleHeaders() []string {
	return []string{"Authorization", "Origin", "Content-Type", labelHeader, "Last-Event-Id", RequestIDHeader, "Access-Control-Request-Method"}
}

// refuseRepeats answers a request that repeats a query parameter or a
// single-valued header (400), or whose query does not parse, and reports
// whether it answered. The probes are outside it, as they are outside
// guard: they read neither.
func (s *Server) refuseRepeats(w http.ResponseWriter, r *http.Request) bool {
	if isProbe(r.URL.Path) {
		return false
	}
	if err := checkRepeats(r); err != nil {
		s.writeError(w, r, err)
		return true
	}
	return false
}

// checkRepeats is the error of a request that names a parameter or a
// single-valued header more than once, or nil.
func checkRepeats(r *http.Request) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
			Reason: fmt.Sprintf("the query %s does not parse: %v", phrase.Quote(r.URL.RawQuery), err),
			Hints:  []string{"write the query as name=value pairs joined by &, each name and value percent-encoded (%25 for %, %26 for &, %3B for ;)"}}
	}
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names) // the same request is refused naming the same parameter
	for _, name := range names {
		if n := len(q[name]); n > 1 {
			return &engine.Error{Kind: engine.KindUsage, Parameter: name,
				Reason: fmt.Sprintf("the query parameter %s is given %d times: a request names each parameter once", phrase.Quote(name), n),
				Hints:  []string{fmt.Sprintf("give ?%s= once, with the one value you mean", phrase.Clip(name, phrase.QuoteBytes))}}
		}
	}
	for _, h := range singleHeaders() {
		if n := len(r.Header.Values(h)); n > 1 {
			return &engine.Error{Kind: engine.KindUsage, Parameter: h,
				Reason: fmt.Sprintf("the header %s is given %d times: a request sends it once", h, n),
				Hints:  []string{"send " + h + " once, with the one value you mean (a proxy may have added one: see what it forwards)"}}
		}
	}
	return nil
}
