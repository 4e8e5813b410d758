package openapi

import (
	"net/http"
	"reflect"
	"slices"
)

// The parts a route's operation is declared with (the xxxOp function
// beside each handler of the server), and those several routes share.
// Each part that depends on the library served (a variant's enum, the
// input schemas) or names a Go type is a function the document calls
// when it is built.

// Operation is what the OpenAPI document says of a route.
type Operation struct {
	Summary, Description string
	Params               []Param
	Body                 RequestBody // nil: the route reads no body
	Replies              []Reply
	// Shared are statuses answered with a response of
	// components.responses (SharedResponse); the document adds those of
	// the guard, the token and the body reading.
	Shared []int
	// Open: the route is outside the guard and the token (/healthz): no
	// security, and no 401, 403 or 421.
	Open bool
	// Mentions are types put in components.schemas that no body of the
	// route names (the data of an event).
	Mentions []Schema
	// PerVariant, when set, makes the document list the route once for
	// each variant, its {variant} filled in, with an operationId of this
	// prefix and the variant's name ("renderDelegation") and the variant's
	// own input as its body: a generated client then has a method of its
	// own, with a typed request, for each variant.
	PerVariant string
	// Labelled: the route answers from the label a request names (a
	// server with labels, render serve --repo); the document then gives
	// it the label parameters, their 404 and 409, and the label headers
	// on its answers.
	Labelled bool
}

// Param is a parameter of an operation.
type Param func(d *Builder) map[string]any

// RequestBody is the request body of an operation.
type RequestBody func(d *Builder) map[string]any

// Schema is the schema of a body; a Go type's becomes a component.
type Schema func(b *schemaBuilder) any

// Reply is a response of an operation's own: its status, what it means,
// its body and the headers it carries.
type Reply struct {
	Code        int
	Description string
	Media       string
	Body        Schema
	Headers     []string
}

// JSONReply is a response whose body is JSON.
func JSONReply(code int, description string, body Schema, headers ...string) Reply {
	return Reply{Code: code, Description: description, Media: "application/json", Body: body, Headers: headers}
}

// TypeOf is the schema of the values of T, as the server encodes them.
func TypeOf[T any]() Schema {
	return func(b *schemaBuilder) any { return b.of(reflect.TypeFor[T]()) }
}

// OneOf is a body that is one of several schemas.
func OneOf(options ...Schema) Schema {
	return func(b *schemaBuilder) any {
		list := []any{}
		for _, o := range options {
			list = append(list, o(b))
		}
		return map[string]any{"oneOf": list}
	}
}

// Literal is a schema written out.
func Literal(s map[string]any) Schema {
	return func(*schemaBuilder) any { return s }
}

// Text is the schema of a body that is text.
func Text() Schema { return Literal(map[string]any{"type": "string"}) }

// The headers of answers the document describes that its operations name.
const (
	StaleHeader  = "X-Promptsmith-Stale"
	LabelHeader  = "X-Promptsmith-Label"
	CommitHeader = "X-Promptsmith-Commit"
)

// ProvenanceHeaders are the headers of an answer that say which library
// made it.
func ProvenanceHeaders() []string {
	return []string{"X-Promptsmith-Library", "X-Promptsmith-Library-Hash", "X-Promptsmith-Variant-Hash", "X-Promptsmith-Version", StaleHeader}
}

// StaleDoc is what the operations that answer from a variant say of an
// answer made from its last good version.
const StaleDoc = "When the working copy's version of the variant does not load (render serve --templates DIR --watch), the server answers " +
	"with its last good version and says so: X-Promptsmith-Stale gives the error's position and reason, the body's stale member the whole error " +
	"(result.stale in a CheckFailure), and X-Promptsmith-Library names the library that made the answer, as the body's provenance does."

// SharedResponse names the response of components.responses
// (sharedResponses) that a status is answered with.
func SharedResponse(code int) string {
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

// VariantParam is the {variant} of a path: one of the library's (any
// name without a library, for QueryNames).
func VariantParam(d *Builder) map[string]any {
	schema := map[string]any{"type": "string"}
	if d.c.Library != nil {
		schema["enum"] = d.c.Library.Names()
	}
	return map[string]any{"name": "variant", "in": "path", "required": true,
		"description": "A variant of the library (GET /v1/variants).", "schema": schema}
}

// ExampleParam is the {example} of a path.
func ExampleParam(*Builder) map[string]any {
	return map[string]any{"name": "example", "in": "path", "required": true,
		"description": "An example's name (GET /v1/variants lists them).", "schema": map[string]any{"type": "string"}}
}

// MaxTokensParam is the max_tokens parameter of a render (tokenAsk).
func MaxTokensParam(*Builder) map[string]any {
	return map[string]any{"name": "max_tokens", "in": "query",
		"description": "Fit the prompt to this many tokens, cutting what the variant's budget allows, lowest priority first (result.budget says what was cut); " +
			"a prompt that cannot fit answers 422.",
		"schema": map[string]any{"type": "integer", "minimum": 1}}
}

// QueryParam is a query parameter of one route.
func QueryParam(name, description string, schema map[string]any) Param {
	return func(*Builder) map[string]any {
		return map[string]any{"name": name, "in": "query", "description": description, "schema": schema}
	}
}

// InputRequest is the body of a render or check: the input of the
// variant the operation is for (d.variant).
func InputRequest(d *Builder) map[string]any {
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

// QueryNames are the query parameters o takes: its Params', and a
// labelled route's label and library (a server without labels takes and
// ignores them).
func (o Operation) QueryNames() []string {
	d := &Builder{}
	params := o.Params
	if o.Labelled {
		params = append(slices.Clone(params), LabelParams()...)
	}
	var names []string
	for _, p := range params {
		if m := p(d); m["in"] == "query" {
			names = append(names, m["name"].(string))
		}
	}
	return names
}

// LabelParams are the parameters of a request answered from a label.
func LabelParams() []Param {
	return []Param{
		QueryParam("label", "The label to answer from (GET /v1/libraries lists them); the default label when none is given. "+
			"The X-Promptsmith-Label header says the same; both given and different answer 400.", map[string]any{"type": "string"}),
		labelHeaderParam,
		QueryParam("library", "Answer only from this library (its hash, or a prefix of 12 digits or more, as X-Promptsmith-Library-Hash gives it): "+
			"409 when the label now serves another; 400 when it is not such a hash.", map[string]any{"type": "string", "pattern": "^[0-9a-fA-F]{12,64}$"}),
	}
}

// labelHeaderParam is the X-Promptsmith-Label request header.
func labelHeaderParam(*Builder) map[string]any {
	return map[string]any{"name": LabelHeader, "in": "header",
		"description": "The label to answer from, as ?label= (render serve --repo).", "schema": map[string]any{"type": "string"}}
}

// Variant is the variant of the operation being written, for a route
// listed once for each (Operation.PerVariant); empty otherwise.
func (d *Builder) Variant() string { return d.variant }
