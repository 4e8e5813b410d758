package server

import (
	"net/http"
	"reflect"

	"github.com/promptsmith/promptsmith/tokens"
)

// The parts a route's operation is declared with (routes.go, and the
// xxxOp function beside each handler), and those several routes share.
// Each part that depends on the library served (a variant's enum, the
// input schemas) or names a Go type is a function the document calls when
// it is built.

// operation is what the OpenAPI document says of a route.
type operation struct {
	summary, description string
	params               []param
	body                 requestBody // nil: the route reads no body
	replies              []reply
	// shared are statuses answered with a response of
	// components.responses (sharedResponse); docBuilder.responses adds
	// those of the guard, the token and the body reading.
	shared []int
	// open: the route is outside the guard and the token (/healthz): no
	// security, and no 401, 403 or 421.
	open bool
	// only, when set, says whether the server offers the route, which
	// depends on how it runs; the document lists it only then.
	only func(*Server) bool
	// mentions are types put in components.schemas that no body of the
	// route names (the data of an event).
	mentions []schema
	// perVariant, when set, makes the document list the route once for
	// each variant, its {variant} filled in, with an operationId of this
	// prefix and the variant's name ("renderDelegation") and the variant's
	// own input as its body: a generated client then has a method of its
	// own, with a typed request, for each variant.
	perVariant string
	// labelled: the route answers from the label a request names (a
	// server with labels, render serve --repo); the document then gives
	// it the label parameters, their 404 and 409, and the label headers
	// on its answers.
	labelled bool
}

// param is a parameter of an operation.
type param func(d *docBuilder) map[string]any

// requestBody is the request body of an operation.
type requestBody func(d *docBuilder) map[string]any

// schema is the schema of a body; a Go type's becomes a component.
type schema func(b *schemaBuilder) any

// reply is a response of an operation's own: its status, what it means,
// its body and the headers it carries.
type reply struct {
	code        int
	description string
	media       string
	body        schema
	headers     []string
}

// jsonReply is a response whose body is JSON.
func jsonReply(code int, description string, body schema, headers ...string) reply {
	return reply{code: code, description: description, media: "application/json", body: body, headers: headers}
}

// typeOf is the schema of the values of T, as the server encodes them.
func typeOf[T any]() schema {
	return func(b *schemaBuilder) any { return b.of(reflect.TypeFor[T]()) }
}

// oneOf is a body that is one of several schemas.
func oneOf(options ...schema) schema {
	return func(b *schemaBuilder) any {
		list := []any{}
		for _, o := range options {
			list = append(list, o(b))
		}
		return map[string]any{"oneOf": list}
	}
}

// literal is a schema written out.
func literal(s map[string]any) schema {
	return func(*schemaBuilder) any { return s }
}

// text is the schema of a body that is text.
func text() schema { return literal(map[string]any{"type": "string"}) }

// provenanceHeaderNames are the headers provenanceHeaders sets.
func provenanceHeaderNames() []string {
	return []string{"X-Promptsmith-Library", "X-Promptsmith-Library-Hash", "X-Promptsmith-Variant-Hash", "X-Promptsmith-Version", staleHeader}
}

// staleDoc is what the operations that answer from a variant say of an
// answer made from its last good version.
const staleDoc = "When the working copy's version of the variant does not load (render serve --templates DIR --watch), the server answers " +
	"with its last good version and says so: X-Promptsmith-Stale gives the error's position and reason, the body's stale member the whole error " +
	"(result.stale in a CheckFailure), and X-Promptsmith-Library names the library that made the answer, as the body's provenance does."

// sharedResponse names the response of components.responses
// (sharedResponses) that a status is answered with.
func sharedResponse(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "BadRequest"
	case http.StatusUnauthorized:
		return "Unauthorized"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowed"
	case http.StatusRequestTimeout:
		return "RequestTimeout"
	case http.StatusRequestEntityTooLarge:
		return "TooLarge"
	case http.StatusUnsupportedMediaType:
		return "UnsupportedMediaType"
	case http.StatusMisdirectedRequest:
		return "Misdirected"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusInternalServerError:
		return "Internal"
	case http.StatusServiceUnavailable:
		return "Unavailable"
	}
	return ""
}

// variantParam is the {variant} of a path: one of the library's.
func variantParam(d *docBuilder) map[string]any {
	return map[string]any{"name": "variant", "in": "path", "required": true,
		"description": "A variant of the library (GET /v1/variants).",
		"schema":      map[string]any{"type": "string", "enum": d.lib.Names()}}
}

// exampleParam is the {example} of a path.
func exampleParam(*docBuilder) map[string]any {
	return map[string]any{"name": "example", "in": "path", "required": true,
		"description": "An example's name (GET /v1/variants lists them).", "schema": map[string]any{"type": "string"}}
}

// maxTokensParam and tokensParam are the token parameters of a render
// (tokenAsk).
func maxTokensParam(*docBuilder) map[string]any {
	return map[string]any{"name": "max_tokens", "in": "query",
		"description": "Fit the prompt to this many tokens, cutting what the variant's budget allows, lowest priority first (result.budget says what was cut); " +
			"a prompt that cannot fit answers 422.",
		"schema": map[string]any{"type": "integer", "minimum": 1}}
}

func tokensParam(*docBuilder) map[string]any {
	return map[string]any{"name": "tokens", "in": "query",
		"description": "The encoding to count tokens with, the prompt's and each section's; max_tokens counts with it (the server's --tokens by default).",
		"schema":      map[string]any{"type": "string", "enum": tokens.Encodings()}}
}

// queryParam is a query parameter of one route.
func queryParam(name, description string, schema map[string]any) param {
	return func(*docBuilder) map[string]any {
		return map[string]any{"name": name, "in": "query", "description": description, "schema": schema}
	}
}

// inputRequest is the body of a render or check: the input of the
// variant the operation is for (d.variant).
func inputRequest(d *docBuilder) map[string]any {
	input := ref(inputComponent(d.variant))
	return map[string]any{
		"required": true,
		"description": "The input of the " + d.variant + " variant, as JSON or YAML: components.schemas." + inputComponent(d.variant) + ", " +
			"the schema GET /v1/variants/" + d.variant + "/schema answers, written for code generators (its $defs are components of their own). " +
			"application/x-yaml, text/yaml, text/x-yaml and any +json or +yaml type are taken too; text/plain and form types are refused (415).",
		"content": map[string]any{
			"application/json": map[string]any{"schema": input},
			"application/yaml": map[string]any{"schema": input},
		},
	}
}
