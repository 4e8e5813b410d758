package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
)

// Route is one endpoint the document describes: its method, its path as
// the server's mux pattern has it, and what the document says of it.
type Route struct {
	Method, Path string
	Op           Operation
}

// Config is what the document depends on besides the routes: the library
// served, how the server runs, and the server's own Go types.
type Config struct {
	Library *engine.Library
	// Token: the server was started with a token, which every operation but
	// the open ones needs.
	Token bool
	// Labels: the server serves labels of a git repository (render serve
	// --repo); labelled operations get the label parameters and headers.
	Labels bool
	// Components names the server's own Go types that become
	// components.schemas ("Result"), beside the engine's; Descriptions
	// documents them and their members ("Result.text").
	Components   map[reflect.Type]string
	Descriptions map[string]string
	// ErrorBody is the type of the body of every error response.
	ErrorBody reflect.Type
}

// Build builds the OpenAPI 3.1 document of the API as a server serves
// c.Library: its variants, their input schemas, and whether a token is
// needed, with an operation for each route.
func Build(c Config, routes []Route) ([]byte, error) {
	d := &Builder{c: c, routes: routes, schemas: newSchemaBuilder(c.Components, c.Descriptions)}
	if err := d.addInputs(); err != nil {
		return nil, err
	}
	paths, err := d.paths()
	if err != nil {
		return nil, err
	}
	components := ordered{
		{"schemas", d.schemas.components},
		{"responses", d.sharedResponses()},
		{"headers", headers()},
	}
	bearer := "The token the server was started with (render serve --token-file FILE), in Authorization: Bearer <token>."
	if !c.Token {
		bearer += " This server was started without one: no request needs it."
	}
	components = append(components, kv{"securitySchemes", map[string]any{
		"bearerAuth": map[string]any{"type": "http", "scheme": "bearer", "description": bearer},
	}})
	if d.schemas.err != nil {
		return nil, d.schemas.err
	}
	lib := c.Library
	doc := ordered{
		{"openapi", "3.1.0"},
		{"info", ordered{
			{"title", "promptsmith"},
			{"version", lib.Provenance().Version},
			{"description", apiDescription + d.labelsDescription() + "\n\nThis document describes the library " + lib.Provenance().Library + "."},
		}},
	}
	// The servers: the one that answered, wherever it was reached.
	doc = append(doc, kv{"servers", []any{map[string]any{"url": "/", "description": "The server that answered this document."}}})
	// Every operation but the probes needs the token when the server has
	// one; without one, none does (the empty requirement).
	if c.Token {
		doc = append(doc, kv{"security", []any{map[string]any{"bearerAuth": []string{}}}})
	} else {
		doc = append(doc, kv{"security", []any{map[string]any{}}})
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

A path asked with a method it does not list answers 405 with an Allow header (components.responses.MethodNotAllowed), and OPTIONS 204 with Allow; a path not listed answers 404 (components.responses.NotFound). When every render slot and queue place is taken, or a render runs past the server's --render-timeout, render, check and extract answer 503 with Retry-After. Render and check responses name the library that answered in X-Promptsmith-* headers. An answer made from a variant's last good version, because the working copy's does not load (render serve --watch), carries X-Promptsmith-Stale, and its body a stale member saying why.

Each variant has its own render and check operations (renderDelegation, checkDelegation, ...), whose body is the variant's input. With an audit store, a render is answered only once its prompt is recorded (503 with Retry-After while the store does not answer), and GET /v1/audit/{key} reads it back. Every answer carries X-Request-Id, the id the server's log names the request by (the caller's own, when it sent a usable one). A W3C traceparent makes the server's spans part of the caller's trace. The probes /livez and /readyz need no token.`

// Builder holds what the operations of the document share; the parts of
// an operation that depend on the library (a variant's enum, the input
// schemas) are functions of it.
type Builder struct {
	c       Config
	routes  []Route
	schemas *schemaBuilder
	// variant is the variant of the operation being written, for a route
	// listed once for each (operation.perVariant).
	variant string
}

// paths walks the route table: the operation of each route the server
// offers, under its path.
func (d *Builder) paths() (map[string]any, error) {
	paths := map[string]any{}
	for _, rt := range d.routes {
		if rt.Op.Summary == "" {
			return nil, fmt.Errorf("no OpenAPI operation for %s %s: give its route one in routeTable", rt.Method, rt.Path)
		}
		path := strings.TrimSuffix(rt.Path, "{$}")
		if path == "" {
			path = "/"
		}
		if rt.Op.PerVariant != "" {
			for _, name := range d.c.Library.Names() {
				d.variant = name
				addOperation(paths, strings.Replace(path, "{variant}", name, 1), rt.Method, d.operation(rt))
			}
			d.variant = ""
			continue
		}
		addOperation(paths, path, rt.Method, d.operation(rt))
	}
	return paths, nil
}

// addOperation puts op under its path and method.
func addOperation(paths map[string]any, path, method string, op map[string]any) {
	item, _ := paths[path].(map[string]any)
	if item == nil {
		item = map[string]any{}
		paths[path] = item
	}
	item[strings.ToLower(method)] = op
}

// operation is the OpenAPI operation of one route, from what its route
// declares.
func (d *Builder) operation(rt Route) map[string]any {
	o := rt.Op
	op := map[string]any{"summary": o.Summary, "operationId": operationID(rt.Method, rt.Path), "responses": d.responses(rt)}
	if d.variant != "" {
		op["operationId"] = o.PerVariant + typeNameOf(d.variant)
		op["summary"] = o.Summary + ": " + d.variant
		op["tags"] = []string{d.variant}
	}
	if o.Description != "" {
		op["description"] = o.Description
	}
	params := o.Params
	if o.Labelled && d.c.Labels {
		params = append(slices.Clone(params), LabelParams()...)
	}
	if len(params) > 0 {
		list := []any{}
		for _, p := range params {
			list = append(list, p(d))
		}
		op["parameters"] = list
	}
	if o.Body != nil {
		op["requestBody"] = o.Body(d)
	}
	if o.Open {
		op["security"] = []any{}
	}
	for _, m := range o.Mentions {
		m(d.schemas)
	}
	return op
}

// responses are a route's own responses, the shared ones it names, and
// those every route the guard, the token or a body applies to may answer.
func (d *Builder) responses(rt Route) map[string]any {
	out := map[string]any{}
	labelled := rt.Op.Labelled && d.c.Labels
	for _, r := range rt.Op.Replies {
		hdrs := r.Headers
		if labelled {
			hdrs = append(slices.Clone(hdrs), LabelHeader, CommitHeader)
		}
		out[strconv.Itoa(r.Code)] = response(r.Description, content(r.Media, r.Body(d.schemas)), hdrs...)
	}
	shared := slices.Clone(rt.Op.Shared)
	if labelled {
		shared = append(shared, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	}
	if !rt.Op.Open {
		shared = append(shared, http.StatusForbidden, http.StatusMisdirectedRequest)
		if d.c.Token {
			shared = append(shared, http.StatusUnauthorized)
		}
	}
	if rt.Method == "POST" {
		shared = append(shared, http.StatusRequestTimeout, http.StatusUnsupportedMediaType)
	}
	for _, code := range shared {
		name := SharedResponse(code)
		if name == "" {
			d.schemas.fail(fmt.Errorf("%s %s: no shared response for status %d", rt.Method, rt.Path, code))
		}
		out[strconv.Itoa(code)] = responseRef(name)
	}
	return out
}

// componentName keeps a variant's name to what a component name may hold.
var componentName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// addInputs adds each variant's input schema to components.schemas as
// <variant>Input, its internal references rewritten to point into the
// document, and keeps their references for the request bodies.
func (d *Builder) addInputs() error {
	for _, name := range d.c.Library.Names() {
		v, err := d.c.Library.Variant(name)
		if err != nil {
			continue // a variant that does not load has no input to describe; GET /v1/variants lists its error
		}
		dec := json.NewDecoder(bytes.NewReader(v.SchemaJSON()))
		dec.UseNumber()
		var schema map[string]any
		if err := dec.Decode(&schema); err != nil {
			return fmt.Errorf("the schema of %s: %w", name, err)
		}
		delete(schema, "$schema") // the document's dialect is 2020-12 already
		delete(schema, "$id")     // its references now point into the document
		if _, ok := schema["description"]; !ok {
			schema["description"] = "The input of the " + name + " variant (GET /v1/variants/" + name + "/schema)."
		}
		components, err := forGenerators(schema, name)
		if err != nil {
			return err
		}
		for def, s := range components {
			if _, taken := d.schemas.components[def]; taken {
				return fmt.Errorf("the schema of %s: components.schemas.%s is taken twice", name, def)
			}
			d.schemas.components[def] = s
		}
	}
	return nil
}

// inputComponent names the component of a variant's input: <variant>Input.
func inputComponent(variant string) string {
	return componentName.ReplaceAllString(variant, "_") + "Input"
}

// typeNameOf is a variant's name as the rest of an operationId:
// "delegation" → "Delegation".
func typeNameOf(variant string) string {
	var b strings.Builder
	up := true
	for _, r := range variant {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		b.WriteRune(r)
		up = false
	}
	return b.String()
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

// sharedResponses are the error responses operations share, named as
// sharedResponse names them.
func (d *Builder) sharedResponses() map[string]any {
	errBody := content("application/json", d.schemas.of(d.c.ErrorBody))
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
		"Conflict":    response("The request pins a library (?library=) that its label no longer serves: GET /v1/libraries says what each serves.", errBody),
		"Internal":    response("The library or the server failed (a template error); the server logs it.", errBody),
		"Unavailable": response("Every render slot and queue place is taken (--max-renders, --max-queue), the render ran past --render-timeout, "+
			"or its prompt could not be recorded in the audit store (a prompt is never answered unrecorded): retry after Retry-After seconds.", errBody, "Retry-After"),
	}
	if d.c.Token {
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
		StaleHeader: h("Only when the answer is made from the variant's last good version because the working copy's does not load "+
			"(a template broken on disk under render serve --templates DIR --watch), or from the last library that loaded because a reload failed: "+
			"the error's position (file:line:col in the library) and reason, on one line of ASCII cut to 300 bytes. The JSON body's stale member has the whole error.", false),
		LabelHeader:        h("The label that answered (render serve --repo): the one the request named, or the default.", false),
		CommitHeader:       h("The commit of the label's library that answered (render serve --repo).", false),
		"Retry-After":      h("Seconds to wait before trying again.", true),
		"Allow":            h("The methods the path answers.", true),
		"WWW-Authenticate": h("Bearer, with error=\"invalid_token\" when a wrong token was sent.", true),
	}
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

// labelsDescription is what the document's description says of labels,
// on a server that serves them.
func (d *Builder) labelsDescription() string {
	if !d.c.Labels {
		return ""
	}
	return "\n\nThis server serves the library of a git repository at labels (render serve --repo): a request picks one with ?label= or the " +
		"X-Promptsmith-Label header (the default label otherwise; GET /v1/libraries lists them), may pin the library with ?library= (409 when the label " +
		"serves another), and every answer from a label names it and its commit in X-Promptsmith-Label and X-Promptsmith-Commit. " +
		"This document describes the library of the label asked for (GET /v1/openapi.json?label=NAME), the default label's otherwise."
}
