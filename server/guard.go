package server

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// The checks in this file keep a web page the user happens to visit from
// using a server on their machine. Without them a page of any site could
// POST a render from the browser (a "simple" request needs no preflight),
// and a site whose name resolves to 127.0.0.1 (DNS rebinding) could even
// read the answers: a browser sends such a site's own name as Host and its
// own origin as Origin, so only the server can tell the request was not
// meant for it.

// guard refuses a request whose Host this server does not answer to (421)
// or whose Origin may not call it (403), and reports whether it answered.
// The probes (/livez, /readyz, /healthz) are outside it: a load balancer's probe may name the server by
// any address (a pod's IP), and the answer tells nothing.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	if isProbe(r.URL.Path) {
		return false
	}
	if err := s.checkHost(r); err != nil {
		s.writeError(w, r, err)
		return true
	}
	if err := s.checkOrigin(r); err != nil {
		w.Header().Add("Vary", "Origin") // no cache may give this answer to another origin
		s.writeError(w, r, err)
		return true
	}
	return false
}

// checkHost accepts a request whose Host is a loopback name or address,
// the address the request came in on (a client that dialled an IP), or a
// name of AllowedHosts (render serve: the host of --addr and each
// --allow-host), with any port. A request handed to ServeHTTP directly,
// not over a connection (a test, a program that routes to the Server
// itself), has no Host a browser chose and is not checked.
func (s *Server) checkHost(r *http.Request) error {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil || r.Host == "" {
		return nil
	}
	host := hostName(r.Host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return nil
		}
		if tcp, ok := local.(*net.TCPAddr); ok && tcp.IP.Equal(ip) {
			return nil
		}
	}
	for _, h := range s.AllowedHosts {
		if h == "*" || hostName(h) == host {
			return nil
		}
	}
	return &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path, Reason: fmt.Sprintf("this server does not answer to the host %s: it answers to loopback names, the host of its --addr "+
		"and the address it was reached on", phrase.Quote(host)),
		Hints: []string{"a page of another site may be reaching this server through DNS rebinding; if " + phrase.Clip(host, phrase.QuoteBytes) +
			" is a name of this server, an operator can start it with --allow-host " + phrase.Clip(host, phrase.QuoteBytes)}, Err: errMisdirected}
}

// hostName is the host of a Host header or of an --allow-host value, in
// lower case, without its port, the brackets of an IPv6 address or a
// trailing dot.
func hostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// checkOrigin accepts a request without an Origin header (not sent by a
// browser page), from an origin of CORSOrigins, or from the server's own
// origin: a page the server served itself (the preview page), whose origin
// is scheme://Host. Host was checked first, so a rebinding site never
// passes for the server's own origin.
func (s *Server) checkOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" || slices.Contains(s.CORSOrigins, origin) || slices.Contains(s.CORSOrigins, "*") || sameOrigin(origin, r.Host) {
		return nil
	}
	return &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path, Reason: "origin " + phrase.Quote(origin) + " may not call this server from a browser",
		Hints: []string{"an operator can allow it with --cors-origin " + phrase.Clip(origin, phrase.QuoteBytes)}, Err: errForbidden}
}

// sameOrigin reports whether origin (scheme://host[:port]) names host,
// the request's Host. The scheme is not compared: behind a proxy that
// ends TLS the server cannot know it, and a page on the same host and
// port is the server's own either way.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	port := map[string]string{"http": ":80", "https": ":443"}[u.Scheme]
	return strings.EqualFold(strings.TrimSuffix(u.Host, port), strings.TrimSuffix(host, port))
}

// bodyKind is what an endpoint reads in a body, and so the Content-Types
// it takes.
type bodyKind int

const (
	inputBody  bodyKind = iota // an input: JSON or YAML
	promptBody                 // a rendered prompt: text
)

// checkContentType accepts a body whose Content-Type is one the endpoint
// reads: JSON or YAML for an input (application/json, application/yaml,
// application/x-yaml, text/yaml, text/x-yaml, any +json or +yaml type),
// text/plain or text/markdown for a prompt; parameters (charset) do not
// matter. A body without a Content-Type is taken as before from clients
// that are not browser pages (no Origin: curl, scripts); a browser page
// must say it. For an input this refuses the types a page may send
// without a CORS preflight (text/plain, multipart/form-data,
// application/x-www-form-urlencoded), whatever the origin.
func checkContentType(r *http.Request, kind bodyKind) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.Header.Get("Origin") == "" {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		if kind == inputBody && inputType(mt) || kind == promptBody && (mt == "text/plain" || mt == "text/markdown") {
			return nil
		}
	}
	want, example := "JSON or YAML (application/json, application/yaml)", "application/json"
	if kind == promptBody {
		want, example = "a rendered prompt as text (text/plain, text/markdown)", "text/plain"
	}
	got := "no Content-Type"
	if ct != "" {
		got = "Content-Type " + phrase.Quote(ct)
	}
	return &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path, Reason: fmt.Sprintf("the body has %s: %s takes %s", got, r.URL.Path, want),
		Hints: []string{fmt.Sprintf("send Content-Type: %s (curl: -H 'Content-Type: %s')", example, example)}, Err: errMediaType}
}

// inputType reports whether a media type is JSON or YAML.
func inputType(mt string) bool {
	switch mt {
	case "application/json", "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+yaml")
}
