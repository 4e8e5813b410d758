package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/tokens"
)

// document builds the OpenAPI 3.1 document of the API as this server
// serves lib: its variants, their input schemas, and whether a token is
// needed.
func (s *Server) document(lib *engine.Library) ([]byte, error) {
	d := &docBuilder{s: s, lib: lib, schemas: newSchemaBuilder()}
	inputs, err := d.inputs()
	if err != nil {
		return nil, err
	}
	paths := map[string]any{}
	for _, rt := range s.routes {
		if !s.offers(rt.path) {
			continue
		}
		path := strings.TrimSuffix(rt.path, "{$}")
		if path == "" {
			path = "/"
		}
		op, err := d.operation(rt.method, rt.path, inputs)
		if err != nil {
			return nil, err
		}
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[strings.ToLower(rt.method)] = op
	}
	components := ordered{
		{"schemas", d.schemas.components},
		{"responses", d.responses()},
		{"headers", headers()},
	}
	if s.Token != "" {
		components = append(components, kv{"securitySchemes", map[string]any{
			"bearerAuth": map[string]any{"type": "http", "scheme": "bearer",
				"description": "The token the server was started with (render serve --token-file FILE)."},
		}})
	}
	if d.schemas.err != nil {
		return nil, d.schemas.err
	}
	doc := ordered{
		{"openapi", "3.1.0"},
		{"info", ordered{
			{"title", "promptsmith"},
			{"version", lib.Provenance().Version},
			{"description", apiDescription + "\n\nThis document describes the library " + lib.Provenance().Library + "."},
		}},
	}
	if s.Token != "" {
		doc = append(doc, kv{"security", []any{map[string]any{"bearerAuth": []string{}}}})
	}
	doc = append(doc, kv{"paths", paths}, kv{"components", components})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

const apiDescription = `Renders the system prompts of multi-agent platforms from the template library the server holds.

Every response of the API is JSON, but for the schema (application/schema+json), examples (as written), metrics (Prometheus text) and the preview page. An error answers {"error": Error} (components.schemas.ErrorBody); a render whose prompt fails a check of its manifest answers 422 with {"error", "result"} (CheckFailure).

A path asked with a method it does not list answers 405 with an Allow header (components.responses.MethodNotAllowed), and OPTIONS 204 with Allow; a path not listed answers 404 (components.responses.NotFound). When every render slot and queue place is taken, or a render runs past the server's --render-timeout, render, check and extract answer 503 with Retry-After. Render and check responses name the library that answered in X-Promptsmith-* headers.`

// docBuilder holds what the operations of the document share.
type docBuilder struct {
	s       *Server
	lib     *engine.Library
	schemas *schemaBuilder
}

// componentName keeps a variant's name to what a component name may hold.
var componentName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// inputs adds each variant's input schema to components.schemas as
// <variant>Input, its internal references rewritten to point into the
// document, and returns their references.
func (d *docBuilder) inputs() ([]any, error) {
	var refs []any
	for _, name := range d.lib.Names() {
		v, _ := d.lib.Variant(name)
		dec := json.NewDecoder(bytes.NewReader(v.SchemaJSON()))
		dec.UseNumber()
		var schema map[string]any
		if err := dec.Decode(&schema); err != nil {
			return nil, fmt.Errorf("the schema of %s: %w", name, err)
		}
		component := componentName.ReplaceAllString(name, "_") + "Input"
		delete(schema, "$schema") // the document's dialect is 2020-12 already
		delete(schema, "$id")     // its references now point into the document
		rebase(schema, "#/components/schemas/"+component)
		if _, ok := schema["description"]; !ok {
			schema["description"] = "The input of the " + name + " variant (GET /v1/variants/" + name + "/schema)."
		}
		d.schemas.components[component] = schema
		refs = append(refs, ref(component))
	}
	return refs, nil
}

// rebase rewrites the document-local references ("#/$defs/x") of a schema
// to point at the same place under at.
func rebase(node any, at string) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if s, ok := v.(string); ok && (k == "$ref" || k == "$dynamicRef") && strings.HasPrefix(s, "#") {
				n[k] = at + strings.TrimPrefix(s, "#")
				continue
			}
			rebase(v, at)
		}
	case []any:
		for _, v := range n {
			rebase(v, at)
		}
	}
}

func content(mediaType string, schema any) map[string]any {
	return map[string]any{mediaType: map[string]any{"schema": schema}}
}

func response(description string, c map[string]any, hdrs ...string) map[string]any {
	r := map[string]any{"description": description}
	if c != nil {
		r["content"] = c
	}
	if len(hdrs) > 0 {
		h := map[string]any{}
		for _, name := range hdrs {
			h[name] = map[string]any{"$ref": "#/components/headers/" + name}
		}
		r["headers"] = h
	}
	return r
}

func responseRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/responses/" + name}
}

// responses are the error responses operations share.
func (d *docBuilder) responses() map[string]any {
	errBody := content("application/json", d.schemas.of(reflect.TypeFor[errorBody]()))
	r := map[string]any{
		"BadRequest":       response("The request itself is wrong: a query parameter (error.parameter) or the body could not be read.", errBody),
		"NotFound":         response("No such variant (error.variant), example (error.example) or path (error.path).", errBody),
		"MethodNotAllowed": response("The path does not answer this method; Allow lists those it does.", errBody, "Allow"),
		"TooLarge":         response("The body is over the server's --max-body (refused before it is read when Content-Length says so); the connection is closed.", errBody),
		"RequestTimeout":   response("The body arrived slower than the server's --min-body-rate, or not within its --read-timeout; the connection is closed.", errBody),
		"UnsupportedMediaType": response("The body's Content-Type is not one the endpoint reads (JSON or YAML for an input, text for a prompt), "+
			"or a browser page sent none; the connection is closed.", errBody),
		"Forbidden":   response("The request comes from a browser page of an origin the server does not allow (--cors-origin).", errBody),
		"Misdirected": response("The request's Host is not a name of the server (a loopback name, the host of --addr, an --allow-host).", errBody),
		"Internal":    response("The library or the server failed (a template error, an audit write that failed); the server logs it.", errBody),
		"Unavailable": response("Every render slot and queue place is taken (--max-renders, --max-queue), or the render ran past --render-timeout: retry after Retry-After seconds.", errBody, "Retry-After"),
	}
	if d.s.Token != "" {
		r["Unauthorized"] = response("The request has no bearer token, or not the server's.", errBody, "WWW-Authenticate")
	}
	return r
}

func headers() map[string]any {
	str := map[string]any{"type": "string"}
	h := func(description string, required bool) map[string]any {
		return map[string]any{"description": description, "required": required, "schema": str}
	}
	return map[string]any{
		"X-Promptsmith-Library":      h("The short hash (12 hex digits) of the library that answered.", true),
		"X-Promptsmith-Library-Hash": h("The hex SHA-256 of the library that answered.", true),
		"X-Promptsmith-Variant-Hash": h("The hex SHA-256 of the variant's own files.", true),
		"X-Promptsmith-Version":      h("The module version of the program.", true),
		"Retry-After":                h("Seconds to wait before trying again.", true),
		"Allow":                      h("The methods the path answers.", true),
		"WWW-Authenticate":           h("Bearer, with error=\"invalid_token\" when a wrong token was sent.", true),
	}
}

// operation is the OpenAPI operation of one route.
func (d *docBuilder) operation(method, path string, inputs []any) (map[string]any, error) {
	of := func(v any) map[string]any { return d.schemas.of(reflect.TypeOf(v)) }
	provenance := []string{"X-Promptsmith-Library", "X-Promptsmith-Library-Hash", "X-Promptsmith-Variant-Hash", "X-Promptsmith-Version"}
	variant := map[string]any{"name": "variant", "in": "path", "required": true,
		"description": "A variant of the library (GET /v1/variants).",
		"schema":      map[string]any{"type": "string", "enum": d.lib.Names()}}
	example := map[string]any{"name": "example", "in": "path", "required": true,
		"description": "An example's name (GET /v1/variants lists them).", "schema": map[string]any{"type": "string"}}
	inputBody := map[string]any{
		"required": true,
		"description": "The input of the variant named in the path, as JSON or YAML: components.schemas.<variant>Input, " +
			"the same schema GET /v1/variants/{variant}/schema answers. application/x-yaml, text/yaml, text/x-yaml and " +
			"any +json or +yaml type are taken too; text/plain and form types are refused (415).",
		"content": map[string]any{
			"application/json": map[string]any{"schema": map[string]any{"anyOf": inputs}},
			"application/yaml": map[string]any{"schema": map[string]any{"anyOf": inputs}},
		},
	}
	maxTokens := map[string]any{"name": "max_tokens", "in": "query",
		"description": "Fit the prompt to this many tokens, cutting what the variant's budget allows, lowest priority first (result.budget says what was cut); " +
			"a prompt that cannot fit answers 422.",
		"schema": map[string]any{"type": "integer", "minimum": 1}}
	tokensParam := map[string]any{"name": "tokens", "in": "query",
		"description": "The encoding to count tokens with, the prompt's and each section's; max_tokens counts with it (the server's --tokens by default).",
		"schema":      map[string]any{"type": "string", "enum": tokens.Encodings}}
	op := map[string]any{}
	responses := map[string]any{}
	switch method + " " + path {
	case "GET /v1/variants":
		op["summary"] = "List the variants, their descriptions and examples"
		responses["200"] = response("The variants.", content("application/json", map[string]any{"type": "array", "items": of(variantInfo{})}))
	case "GET /v1/variants/{variant}/schema":
		op["summary"] = "The JSON Schema (2020-12) of a variant's input"
		op["parameters"] = []any{variant}
		responses["200"] = response("The schema, as the library holds it.",
			content("application/schema+json", map[string]any{"type": "object", "description": "A JSON Schema (2020-12) document."}), provenance...)
		responses["404"] = responseRef("NotFound")
	case "GET /v1/variants/{variant}/examples/{example}":
		op["summary"] = "An example input of a variant, as written (YAML or JSON)"
		op["parameters"] = []any{variant, example}
		responses["200"] = response("The example input.", content("text/plain", map[string]any{"type": "string"}))
		responses["404"] = responseRef("NotFound")
	case "GET /v1/variants/{variant}/examples/{example}/golden":
		op["summary"] = "An example's prompt as rendered now, beside its golden file in the working copy"
		op["description"] = "Renders the example (fitted to max_tokens, as a render is) and compares the prompt with testdata/golden/<variant>/<example>.md " +
			"of the working copy, or with the file of the manifest's budget_examples entry for that budget, as render test does. " +
			"Listed only when the server serves a working copy that has a testdata/golden folder."
		op["parameters"] = []any{variant, example, maxTokens, tokensParam}
		responses["200"] = response("The comparison.", content("application/json", of(goldenReport{})))
		responses["400"] = responseRef("BadRequest")
		responses["404"] = response("No such variant, example or golden file for that budget.", content("application/json", of(errorBody{})))
		responses["422"] = response("The example does not render, or its prompt fails a check.", content("application/json", of(errorBody{})))
		responses["500"] = responseRef("Internal")
		responses["503"] = responseRef("Unavailable")
	case "GET /v1/variants/{variant}/lint":
		op["summary"] = "What render lint finds in a variant"
		op["description"] = "The static checks of render lint (every field every template reads, in every branch, against the schema; includes; " +
			"the schema's defaults, examples and descriptions) and, for a working copy, every example rendered, checked and compared with its golden file. " +
			"A variant that does not load, or is served from its last good version, is one finding per problem of its error."
		op["parameters"] = []any{variant}
		responses["200"] = response("The findings.", content("application/json", of(lintReport{})))
		responses["404"] = responseRef("NotFound")
		responses["500"] = responseRef("Internal")
		responses["503"] = responseRef("Unavailable")
	case "GET /v1/events":
		op["summary"] = "Server-sent events: a library swapped in, or a reload that failed"
		op["description"] = "A text/event-stream that render serve --templates DIR --watch keeps open: an event named library at once, " +
			"then one each time the server swaps in the working copy or fails to reload it, each with an id naming the state " +
			"and a LibraryStatus as its JSON data (components.schemas.LibraryStatus). A client that reconnects with Last-Event-ID " +
			"gets no event for the state it has seen. Listed only when the server watches its library; at most --max-event-streams are open at once."
		of(libraryStatus{}) // in components.schemas, for the events' data
		responses["200"] = response("The stream, until the client leaves or the server stops.", content("text/event-stream",
			map[string]any{"type": "string", "description": "Events \"id: N\\nevent: library\\ndata: <LibraryStatus>\\n\\n\" and keep-alive comments."}))
		responses["503"] = responseRef("Unavailable")
	case "POST /v1/render/{variant}", "POST /v1/check/{variant}":
		op["parameters"] = []any{variant, maxTokens, tokensParam}
		op["requestBody"] = inputBody
		if strings.HasPrefix(path, "/v1/render/") {
			op["summary"] = "Render a prompt"
			op["description"] = "Decode, validate, render and check the input; with an audit store, record the prompt before answering."
			responses["200"] = response("The prompt and its metadata.", content("application/json", of(engine.Result{})), provenance...)
			responses["422"] = response("The input is malformed or breaks the schema or a rule (ErrorBody, error.field and error.position say where), "+
				"or cannot fit max_tokens (ErrorBody), or the prompt failed a check (CheckFailure: error.also names each failed check and its section; result is the prompt).",
				content("application/json", map[string]any{"oneOf": []any{of(errorBody{}), of(checkFailure{})}}), provenance...)
		} else {
			op["summary"] = "Render a prompt and report its checks only"
			responses["200"] = response("Every check passed.", content("application/json", of(checkReport{})), provenance...)
			responses["422"] = response("The input is wrong (ErrorBody), or a check failed (CheckReport with ok false and error).",
				content("application/json", map[string]any{"oneOf": []any{of(errorBody{}), of(checkReport{})}}), provenance...)
		}
		responses["400"] = responseRef("BadRequest")
		responses["404"] = responseRef("NotFound")
		responses["413"] = responseRef("TooLarge")
		responses["500"] = responseRef("Internal")
		responses["503"] = responseRef("Unavailable")
	case "POST /v1/extract":
		op["summary"] = "Take the prompt embedded in a rendered prompt, a number of levels down"
		op["parameters"] = []any{
			map[string]any{"name": "depth", "in": "query", "description": "How many levels down: 1 is the parent's prompt, 2 its parent's.",
				"schema": map[string]any{"type": "integer", "minimum": 1, "default": 1}},
			map[string]any{"name": "variant", "in": "query", "description": "The variant whose verbatim region to read; needed when several declare one.",
				"schema": map[string]any{"type": "string"}},
			map[string]any{"name": "region", "in": "query", "description": "The verbatim region to read; needed when the variant declares several.",
				"schema": map[string]any{"type": "string"}},
		}
		op["requestBody"] = map[string]any{"required": true, "description": "A rendered prompt, as text/plain or text/markdown.",
			"content": map[string]any{
				"text/plain":    map[string]any{"schema": map[string]any{"type": "string"}},
				"text/markdown": map[string]any{"schema": map[string]any{"type": "string"}},
			}}
		responses["200"] = response("The embedded prompt.", content("application/json", of(extracted{})))
		responses["400"] = responseRef("BadRequest")
		responses["404"] = responseRef("NotFound")
		responses["413"] = responseRef("TooLarge")
		responses["422"] = response("The prompt holds no embedded prompt at that level, or its markers do not balance (error.level says where).",
			content("application/json", of(errorBody{})))
		responses["503"] = responseRef("Unavailable")
	case "GET /v1/version":
		op["summary"] = "The program's version and the library's hash"
		responses["200"] = response("What the server runs.", content("application/json", of(versionInfo{})))
	case "GET /v1/openapi.json":
		op["summary"] = "This document"
		responses["200"] = response("The OpenAPI 3.1 document of the API as this server serves it.",
			content("application/json", map[string]any{"type": "object"}))
		responses["500"] = responseRef("Internal")
	case "GET /metrics":
		op["summary"] = "Prometheus metrics"
		op["description"] = "promptsmith_renders_total{variant,outcome}, promptsmith_render_duration_seconds{variant}, " +
			"promptsmith_render_queue_seconds, promptsmith_rendered_bytes_total{variant}, promptsmith_renders_in_flight, " +
			"promptsmith_renders_queued, promptsmith_request_body_bytes, promptsmith_request_bodies_waiting, promptsmith_audit_writes_total, promptsmith_audit_failures_total, " +
			"promptsmith_library_reloads_total, promptsmith_library_reload_failures_total, " +
			"promptsmith_library_info{library,library_short,version}, promptsmith_http_requests_total{route,code}, and the Go runtime's and the process's."
		responses["200"] = response("The metrics, in the Prometheus text format.", content("text/plain", map[string]any{"type": "string"}))
	case "GET /healthz":
		op["summary"] = "Whether the server is up; needs no token"
		op["security"] = []any{}
		responses["200"] = response("Up.", content("application/json", of(health{})))
	case "GET /{$}":
		op["summary"] = "The preview page for authors"
		responses["200"] = response("An HTML page built on the calls above.", content("text/html", map[string]any{"type": "string"}))
	default:
		return nil, fmt.Errorf("no OpenAPI operation for %s %s: add it to operation", method, path)
	}
	if d.s.Token != "" && path != "/healthz" {
		responses["401"] = responseRef("Unauthorized")
	}
	if path != "/healthz" {
		responses["403"] = responseRef("Forbidden")
		responses["421"] = responseRef("Misdirected")
	}
	if method == "POST" {
		responses["408"] = responseRef("RequestTimeout")
		responses["415"] = responseRef("UnsupportedMediaType")
	}
	op["operationId"] = operationID(method, path)
	op["responses"] = responses
	return op, nil
}

// operationID names an operation for code generators: "postV1RenderVariant".
func operationID(method, path string) string {
	id := strings.ToLower(method)
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return strings.ContainsRune("/{}$.", r) }) {
		id += strings.ToUpper(part[:1]) + part[1:]
	}
	if path == "/{$}" {
		id += "Preview"
	}
	return id
}
