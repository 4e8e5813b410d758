package server

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// route is one endpoint of the API: what it answers, its handler, and what
// the OpenAPI document says of it (its operation, written beside the
// handler). The document is built by walking the routes, so that an
// endpoint cannot be served without being described.
type route struct {
	method, path string
	handle       http.HandlerFunc
	op           openapi.Operation
	// only, when set, says whether the server offers the route, which
	// depends on how it runs; the document lists it only then.
	only func(*Server) bool
}

// routeTable is every endpoint, in the order the answer to a path the API
// lacks lists them.
func (s *Server) routeTable() []route {
	return []route{
		{"GET", "/v1/variants", s.variants, variantsOp(), nil},
		{"GET", "/v1/variants/{variant}/schema", s.schema, schemaOp(), nil},
		{"GET", "/v1/variants/{variant}/examples/{example}", s.example, exampleOp(), nil},
		{"GET", "/v1/variants/{variant}/examples/{example}/golden", s.golden, goldenOp(), (*Server).hasGoldenFiles},
		{"GET", "/v1/variants/{variant}/lint", s.lint, lintOp(), nil},
		{"POST", "/v1/render/{variant}", s.render, renderOp(), nil},
		{"POST", "/v1/check/{variant}", s.check, checkOp(), nil},
		{"POST", "/v1/extract", s.extract, extractOp(), nil},
		{"GET", "/v1/audit/{key}", s.auditEntry, auditEntryOp(), nil},
		{"GET", "/v1/audit/{key}/chain", s.auditChain, auditChainOp(), nil},
		{"GET", "/v1/libraries", s.libraries, librariesOp(), (*Server).hasLabels},
		{"POST", "/v1/reload", s.reload, reloadOp(), (*Server).hasLabels},
		{"GET", "/v1/version", s.version, versionOp(), nil},
		{"GET", "/v1/openapi.json", s.openapi, openapiOp(), nil},
		{"GET", "/v1/events", s.streamEvents, eventsOp(), (*Server).streaming},
		{"GET", "/metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}).ServeHTTP, metricsOp(), nil},
		{"GET", "/livez", s.livez, livezOp(), nil},
		{"GET", "/readyz", s.readyz, readyzOp(), nil},
		{"GET", "/healthz", s.readyz, healthzOp(), nil},
		{"GET", "/{$}", s.page, pageOp(), nil},
	}
}

// newMux routes the requests of s.routes. A path the API has, asked with
// another method, answers 405 naming the methods it has (OPTIONS answers
// with them alone); any other path 404, naming the endpoints.
func (s *Server) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range s.routes {
		handle := rt.handle
		if strings.HasPrefix(rt.path, "/v1/") {
			handle = s.knownQuery(rt.op.QueryNames(), handle)
		}
		mux.HandleFunc(rt.method+" "+rt.path, handle)
		if allowed[rt.path] == nil {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
		if rt.method == "GET" {
			allowed[rt.path] = append(allowed[rt.path], "HEAD")
		}
	}
	for _, p := range paths {
		mux.HandleFunc(p, s.methodNotAllowed(allowed[p]))
	}
	mux.HandleFunc("/", s.noEndpoint)
	return mux
}

// knownQuery answers 400 to a request of the API that names a query
// parameter its route does not take, naming it and the one it is nearest
// to: a misspelt ?max_token=100 would otherwise answer 200 with a prompt
// that was never fitted.
func (s *Server) knownQuery(names []string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, k := range slices.Sorted(maps.Keys(r.URL.Query())) {
			if slices.Contains(names, k) {
				continue
			}
			e := &engine.Error{Kind: engine.KindUsage, Parameter: k, Reason: fmt.Sprintf("unknown query parameter %q", k)}
			if near := phrase.Closest(k, names); near != "" {
				e.Hint("did you mean %q?", near)
			}
			_, path, _ := strings.Cut(r.Pattern, " ")
			if len(names) == 0 {
				e.Hint("%s takes no query parameters", path)
			} else {
				e.Hint("%s takes %s (GET /v1/openapi.json describes them)", path, strings.Join(names, ", "))
			}
			s.writeError(w, r, e)
			return
		}
		next(w, r)
	}
}

// methodNotAllowed answers a path with a method other than those it has.
func (s *Server) methodNotAllowed(methods []string) http.HandlerFunc {
	allow := strings.Join(methods, ", ") + ", OPTIONS"
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
			Reason: fmt.Sprintf("%s does not answer %s", r.URL.Path, r.Method),
			Hints:  []string{"use " + strings.Join(methods, " or ")}, Err: errMethod})
	}
}

// noEndpoint answers a path the API does not have.
func (s *Server) noEndpoint(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
		Reason: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path),
		Hints:  []string{"the endpoints are listed in the OpenAPI document at /v1/openapi.json: " + endpointList(s.routes)}, Err: errNotFound})
}

func endpointList(routes []route) string {
	var list []string
	for _, rt := range routes {
		list = append(list, rt.method+" "+strings.TrimSuffix(rt.path, "{$}"))
	}
	return strings.Join(list, ", ")
}
