package server

import (
	"net/http"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// The runtime endpoints that read the library and the server without
// rendering: the variants, their schemas and examples, the version, the
// OpenAPI document and /metrics (the probes are in probes.go); each with its OpenAPI operation.

type variantInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Examples    []string `json:"examples"`
	// Error says why a variant of a working copy does not load (--templates);
	// Stale that it is served from its last good version (--watch), or
	// from the last library that loaded (a reload that failed).
	Error *engine.Error `json:"error,omitempty"`
	Stale bool          `json:"stale,omitempty"`
}

// versionInfo is the answer of /v1/version.
type versionInfo struct {
	engine.Build
	Library      string `json:"library"`
	LibraryShort string `json:"library_short"`
}

func (s *Server) variants(w http.ResponseWriter, r *http.Request) {
	st := s.stateForAnswer(w, r)
	if st == nil {
		return
	}
	out := []variantInfo{}
	for _, name := range st.lib.Names() {
		src, err := st.source(name)
		if err != nil {
			out = append(out, variantInfo{Name: name, Examples: []string{}, Error: wireError(err)})
			continue
		}
		v := src.v
		info := variantInfo{Name: name, Description: v.Description(), Examples: nonNil(v.Examples())}
		if src.stale != nil {
			info.Error, info.Stale = src.stale, true
		}
		out = append(out, info)
	}
	writeJSON(w, http.StatusOK, out)
}

func variantsOp() openapi.Operation {
	return openapi.Operation{Summary: "List the variants, their descriptions and examples",
		Description: "A variant that does not load has its error; one served from its last good version (render serve --watch) has stale true too.",
		Replies:     []openapi.Reply{openapi.JSONReply(200, "The variants.", openapi.TypeOf[[]variantInfo]())}, Labelled: true}
}

func (s *Server) schema(w http.ResponseWriter, r *http.Request) {
	src, err := s.labelSource(w, r, r.PathValue("variant"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	provenanceHeaders(w, src)
	w.Header().Set("Content-Type", "application/schema+json")
	w.WriteHeader(http.StatusOK)
	w.Write(src.v.SchemaJSON())
}

func schemaOp() openapi.Operation {
	return openapi.Operation{Summary: "The JSON Schema (2020-12) of a variant's input",
		Description: "The schema of the variant's last good version, with X-Promptsmith-Stale, when the working copy's does not load.",
		Params:      []openapi.Param{openapi.VariantParam},
		Replies: []openapi.Reply{{Code: 200, Description: "The schema, as the library holds it.", Media: "application/schema+json",
			Body:    openapi.Literal(map[string]any{"type": "object", "description": "A JSON Schema (2020-12) document."}),
			Headers: openapi.ProvenanceHeaders()}},
		Shared: []int{404}, Labelled: true}
}

// example returns an example input as its author wrote it (YAML or JSON).
func (s *Server) example(w http.ResponseWriter, r *http.Request) {
	src, err := s.labelSource(w, r, r.PathValue("variant"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if src.stale != nil {
		w.Header().Set(staleHeader, staleValue(src.stale))
	}
	in, err := exampleOf(src.v, r.PathValue("example"))
	if err != nil {
		s.writeStaleError(w, r, err, src.stale)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(in.Data)
}

// exampleOf is v's example input of that name; one it lacks answers 404.
func exampleOf(v *engine.Variant, name string) (engine.Input, error) {
	in, err := v.Example(name)
	if err != nil {
		return in, notFound(err)
	}
	return in, nil
}

func exampleOp() openapi.Operation {
	return openapi.Operation{Summary: "An example input of a variant, as written (YAML or JSON)",
		Description: "The example of the variant's last good version, with X-Promptsmith-Stale, when the working copy's does not load.",
		Params:      []openapi.Param{openapi.VariantParam, openapi.ExampleParam},
		Replies:     []openapi.Reply{{Code: 200, Description: "The example input.", Media: "text/plain", Body: openapi.Text(), Headers: []string{staleHeader}}},
		Shared:      []int{404}, Labelled: true}
}

func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	st := s.stateForAnswer(w, r)
	if st == nil {
		return
	}
	p := st.lib.Provenance()
	writeJSON(w, http.StatusOK, versionInfo{Build: engine.BuildInfo(), Library: p.Library, LibraryShort: p.Short})
}

func versionOp() openapi.Operation {
	return openapi.Operation{Summary: "The program's version, the commit it was built from and the library's hash",
		Replies: []openapi.Reply{openapi.JSONReply(200, "What the server runs.", openapi.TypeOf[versionInfo]())}, Labelled: true}
}

// openapi answers the OpenAPI document of the library served, built once
// for each library (openapi.go, package openapi).
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	st := s.stateForAnswer(w, r)
	if st == nil {
		return
	}
	st.once.Do(func() { st.openapi, st.err = s.document(st.lib) })
	if st.err != nil {
		s.writeError(w, r, &engine.Error{Kind: engine.KindInternal, Reason: "cannot build the OpenAPI document: " + st.err.Error(), Err: st.err})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(st.openapi)
}

func openapiOp() openapi.Operation {
	return openapi.Operation{Summary: "This document",
		Replies: []openapi.Reply{openapi.JSONReply(200, "The OpenAPI 3.1 document of the API as this server serves it: with labels, as it serves the label asked for.", openapi.Literal(map[string]any{"type": "object"}))},
		Shared:  []int{500}, Labelled: true}
}

// metricsOp describes GET /metrics, which promhttp answers (metrics.go).
func metricsOp() openapi.Operation {
	return openapi.Operation{Summary: "Prometheus metrics",
		Description: "promptsmith_renders_total{variant,outcome}, promptsmith_render_duration_seconds{variant}, " +
			"promptsmith_render_queue_seconds, promptsmith_rendered_bytes_total{variant}, promptsmith_renders_in_flight, " +
			"promptsmith_renders_queued, promptsmith_request_body_bytes, promptsmith_request_bodies_waiting, promptsmith_audit_writes_total, promptsmith_audit_failures_total, " +
			"promptsmith_library_reloads_total, promptsmith_library_reload_failures_total, " +
			"promptsmith_library_info{library,library_short,version}, promptsmith_http_requests_total{route,code}, " +
			"promptsmith_label_failing{label}, promptsmith_label_failures_total{label}, promptsmith_label_switches_total{label}, promptsmith_label_variants_parsed_total{label} (render serve --repo), and the Go runtime's and the process's.",
		Replies: []openapi.Reply{{Code: 200, Description: "The metrics, in the Prometheus text format.", Media: "text/plain", Body: openapi.Text()}}}
}
