package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
)

// exposedHeaders are the response headers a browser page may read besides
// the safelisted ones.
const exposedHeaders = "X-Promptsmith-Library, X-Promptsmith-Library-Hash, X-Promptsmith-Variant-Hash, X-Promptsmith-Version, X-Promptsmith-Stale, " +
	labelHeader + ", " + commitHeader + ", X-Request-Id, Retry-After, WWW-Authenticate"

// authorized reports whether r carries the bearer token, when the server
// has one, and answers 401 when it does not. The comparison takes the same
// time whatever the token sent.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.Token == "" {
		return true
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.Token))
	if strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
		return true
	}
	e := &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path, Reason: "this server needs a bearer token: send Authorization: Bearer <token>", Err: errUnauthorized}
	challenge := `Bearer realm="promptsmith"`
	if r.Header.Get("Authorization") != "" {
		e.Reason = "the bearer token is not the server's"
		challenge += `, error="invalid_token"`
	}
	e.Hints = []string{"the token is the content of the file the server was started with (--token-file); the probes (/livez, /readyz, /healthz) need none"}
	w.Header().Set("WWW-Authenticate", challenge)
	s.writeError(w, r, e)
	return false
}

// cors adds the CORS headers for an allowed origin, and answers its
// preflight request (OPTIONS with Access-Control-Request-Method) at once
// with 204. It reports whether it answered. guard has refused any other
// origin already, but the server's own.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	if len(s.CORSOrigins) == 0 {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	allowed := slices.Contains(s.CORSOrigins, origin) || slices.Contains(s.CORSOrigins, "*")
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !allowed { // the server's own page: no CORS
		return false
	}
	if slices.Contains(s.CORSOrigins, origin) {
		h.Set("Access-Control-Allow-Origin", origin)
	} else {
		h.Set("Access-Control-Allow-Origin", "*")
	}
	if !preflight {
		h.Set("Access-Control-Expose-Headers", exposedHeaders)
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, "+labelHeader) // a page picks a label by header too
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}
