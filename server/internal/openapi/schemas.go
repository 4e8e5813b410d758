package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// The OpenAPI document's schemas of response bodies are made from the Go
// types the server encodes, by reflection, so that the two cannot differ:
// a field added to engine.Result is in the document at once. Every object
// is closed (additionalProperties: false) and its members without
// omitempty are required, so that a test validating real responses
// against the document finds any drift.

// componentNames names the Go types of the engine that become
// components.schemas; the server names its own and its stores' (Config.Components).
func componentNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[engine.Section]():     "Section",
		reflect.TypeFor[engine.Heading]():     "Heading",
		reflect.TypeFor[engine.Region]():      "Region",
		reflect.TypeFor[engine.CheckResult](): "CheckResult",
		reflect.TypeFor[engine.Provenance]():  "Provenance",
		reflect.TypeFor[engine.Error]():       "Error",
	}
}

// kinds are the values of an error's kind.
func kinds() []engine.Kind {
	return []engine.Kind{engine.KindInput, engine.KindTemplate, engine.KindCheck, engine.KindUsage, engine.KindInternal, engine.KindUnavailable, engine.KindIntegrity, engine.KindCancelled}
}

// descriptions document the components ("Result") and their members
// ("Result.text") in the OpenAPI document.
// constants are the members whose value is always the same, as the
// engine writes them: their schema is an enum of that one value, so that a
// generated client types them as the literal the providers' SDKs require
// (an Anthropic block's "text", an OpenAI message's "system").
func constants() map[string]string {
	return map[string]string{
		"AnthropicBlock.type":        "text",
		"AnthropicCacheControl.type": "ephemeral",
		"OpenAIMessage.role":         "system",
	}
}

func descriptions() map[string]string {
	d := map[string]string{
		"Result":                   "A rendered prompt and what is known about it, as render --format json prints it.",
		"Result.variant":           "The variant rendered.",
		"Result.text":              "The prompt.",
		"Result.sections":          "The sections kept, in order: text[start:end] is what each one's template wrote.",
		"Result.outline":           "The prompt's headings, with their SectionPaths; headings inside verbatim regions do not count.",
		"Result.regions":           "The byte ranges of the verbatim fields (an embedded parent prompt).",
		"Result.checks":            "The outcome of each check of the variant's manifest.",
		"Result.ids":               "The ids the manifest computes from the input (delegation_id).",
		"Result.tokens":            "Tokens of the whole prompt, when the server counts them (--tokens).",
		"Result.provenance":        "The library, and the variant's own files, that made the prompt.",
		"Result.budget":            "How the prompt was fitted to a token budget, when it was.",
		"Result.stale":             StaleMember,
		"Section":                  "One kept section of a prompt.",
		"Section.name":             "The section's name in the manifest (its template is <name>.md.tmpl).",
		"Section.start":            "Byte offset of its first byte in text.",
		"Section.end":              "Byte offset just past its last byte in text.",
		"Section.tokens":           "Its tokens, when the server counts them (--tokens).",
		"Heading":                  "A heading of the prompt.",
		"Heading.level":            "1 for #, 2 for ##, ...",
		"Heading.text":             "The heading's text.",
		"Heading.path":             "Its SectionPath: the texts of the headings it stands under and its own, joined by \" > \".",
		"Heading.offset":           "Byte offset of its line in text.",
		"Heading.line":             "Its line number in text, from 1.",
		"Region":                   "The bytes of a verbatim field inside the prompt.",
		"Region.name":              "The region's name in the manifest.",
		"Region.start":             "Byte offset of the field's first byte.",
		"Region.end":               "Byte offset just past the field's last byte.",
		"CheckResult":              "The outcome of one check of the manifest.",
		"CheckResult.check":        "The check: headings, verbatim <region>, forbid \"<text>\", require \"<text>\" or max_bytes.",
		"CheckResult.ok":           "Whether the prompt passed it.",
		"CheckResult.message":      "What failed and where, for a failed check.",
		"Provenance":               "Which library made a prompt: hashes of its files and the program's version.",
		"Provenance.library":       "Hex SHA-256 of every manifest, template and schema of the library.",
		"Provenance.library_short": "Its first 12 hex digits.",
		"Provenance.variant":       "Hex SHA-256 of the variant's own manifest, templates and schema.",
		"Provenance.version":       "The module version of the program.",
	}
	maps.Copy(d, moreDescriptions())
	return d
}

// moreDescriptions document the errors, reports and records the API
// answers, as descriptions does the results.
func moreDescriptions() map[string]string {
	return map[string]string{
		"Error": "A problem, with what it concerns as members of its own. kind says who must act: input (the input is malformed or breaks " +
			"the schema or a rule), check (the prompt failed a check of the manifest), usage (the call is wrong: unknown variant, example, " +
			"parameter, method, token), template (the library is wrong), internal (the program's fault), unavailable (the server cannot " +
			"take the request now: retry after Retry-After seconds).",
		"Error.kind":             "Who must act.",
		"Error.reason":           "What went wrong, in a sentence.",
		"Error.field":            "A JSON pointer into the input (\"/trigger/from\").",
		"Error.position":         "file:line:col (or file:line, or file): in the input (\"body:3:7\") for input errors, in the library (\"templates/delegation/prompt.yaml\") for template and check errors. Never a path on the server's disk.",
		"Error.variant":          "The variant concerned.",
		"Error.example":          "The example input concerned.",
		"Error.level":            "The level of nested extraction concerned, from 1.",
		"Error.check":            "The check that failed (in the also entries of a check failure).",
		"Error.section":          "The section whose template wrote what the check found, where the engine can tell.",
		"Error.path":             "The URL path asked for, for a problem with the request itself.",
		"Error.parameter":        "The query parameter at fault.",
		"Error.hints":            "Sentences saying what to do.",
		"Error.also":             "Further problems found in the same pass; for a check failure, one entry per failed check.",
		"ErrorBody":              "The body of every error response.",
		"ErrorBody.stale":        StaleMember,
		"CheckFailure":           "The body of a render whose prompt failed a check: the error, naming each failed check, and the Result.",
		"CheckReport":            "The outcome of each check of a render, without the prompt.",
		"CheckReport.variant":    "The variant rendered.",
		"CheckReport.ok":         "Whether every check passed.",
		"CheckReport.checks":     "The outcome of each check.",
		"CheckReport.ids":        "The ids the manifest computes from the input.",
		"CheckReport.provenance": "The library that rendered the prompt.",
		"CheckReport.error":      "When a check failed: the error naming each failed check (as in CheckFailure).",
		"CheckReport.stale":      StaleMember,
		"Extraction":             "A prompt embedded in a rendered prompt.",
		"Extraction.depth":       "How many levels down it was taken from.",
		"Extraction.region":      "The verbatim region it was taken from.",
		"Extraction.text":        "The embedded prompt, byte for byte.",
		"Variant":                "A variant of the library.",
		"Variant.name":           "Its name, as in /v1/render/{variant}.",
		"Variant.description":    "What it renders.",
		"Variant.examples":       "The names of its example inputs.",
		"Variant.error":          "Why the variant does not load in the working copy (render serve --templates DIR), or why its last good version is served (stale).",
		"Variant.stale":          "Its answers are made from its last good version, or from the last library that loaded: they carry X-Promptsmith-Stale.",
		"Version":                "What the server runs.",
		"Version.version":        "The module version of the program.",
		"Version.revision":       "The commit the program was built from, when the build recorded it.",
		"Version.vcs_time":       "That commit's time (RFC 3339).",
		"Version.modified":       "The program was built from a work tree with changes not committed.",
		"Version.library":        "Hex SHA-256 of the library served.",
		"Version.library_short":  "Its first 12 hex digits.",
		"Probe":                  "A probe's answer: ok, or why the server is not ready.",
		"Probe.status":           "ok, or unavailable.",
		"Probe.error":            "Why the server is not ready: draining, no library, or the audit store does not answer.",
	}
}

// StaleMember describes the stale member of a body.
const StaleMember = "Only when the answer is made from the variant's last good version, because the working copy's does not load " +
	"(render serve --watch), or from the last library that loaded, because a reload failed: why (position is file:line:col in the library). " +
	"X-Promptsmith-Stale says the same in short."

// schemaBuilder turns Go types into JSON Schemas, putting named structs in
// components.schemas.
type schemaBuilder struct {
	components   map[string]any
	names        map[reflect.Type]string
	descriptions map[string]string
	constants    map[string]string
	err          error
}

func newSchemaBuilder(names map[reflect.Type]string, descs map[string]string) *schemaBuilder {
	b := &schemaBuilder{components: map[string]any{}, names: componentNames(), descriptions: descriptions(), constants: constants()}
	maps.Copy(b.names, names)
	maps.Copy(b.descriptions, descs)
	return b
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// of returns the schema of values of t.
func (b *schemaBuilder) of(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[engine.Kind]() {
		enum := []string{}
		for _, k := range kinds() {
			enum = append(enum, string(k))
		}
		return map[string]any{"type": "string", "enum": enum}
	}
	if t == reflect.TypeFor[time.Time]() { // encoded by its MarshalJSON
		return map[string]any{"type": "string", "format": "date-time"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return b.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": b.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": b.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name, ok := b.names[t]
		if !ok && t.Name() == "" {
			return b.object(t, "").(map[string]any)
		}
		if !ok {
			// A type the engine added: named as in Go, unless that name is taken.
			name = t.Name()
			for other, n := range b.names {
				if n == name && other != t {
					b.fail(fmt.Errorf("%s and %s would both be components.schemas.%s: name one in componentNames", t, other, name))
				}
			}
			b.names[t] = name
		}
		if _, done := b.components[name]; !done {
			b.components[name] = nil // being built: a recursive use refers to it
			b.components[name] = b.object(t, name)
		}
		return ref(name)
	}
	b.fail(fmt.Errorf("no JSON Schema for %s", t))
	return map[string]any{}
}

// object is the schema of a struct: its JSON members, closed.
func (b *schemaBuilder) object(t reflect.Type, name string) any {
	props := ordered{}
	required := []string{}
	b.members(t, name, &props, &required)
	obj := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	if d := b.descriptions[name]; d != "" {
		obj["description"] = d
	}
	return obj
}

// members adds the JSON members of struct t to props, those of embedded
// structs without a name of their own too, as encoding/json does.
func (b *schemaBuilder) members(t reflect.Type, name string, props *ordered, required *[]string) {
	fields := reflect.VisibleFields(t)
	// A struct's own fields before those it embeds: the shallower wins.
	fields = slices.DeleteFunc(fields, func(f reflect.StructField) bool { return len(f.Index) > 1 })
	slices.SortStableFunc(fields, func(a, b reflect.StructField) int {
		return cmpBool(a.Anonymous, b.Anonymous)
	})
	for _, f := range fields {
		tag := f.Tag.Get("json")
		member, opts, _ := strings.Cut(tag, ",")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && member == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				b.members(ft, name, props, required)
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		if member == "" {
			member = f.Name
		}
		if slices.ContainsFunc(*props, func(m kv) bool { return m.key == member }) {
			continue
		}
		s := b.of(f.Type)
		if d := b.descriptions[name+"."+member]; d != "" {
			s["description"] = d
		}
		if c, ok := b.constants[name+"."+member]; ok {
			s["enum"] = []string{c}
		}
		*props = append(*props, kv{member, s})
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			*required = append(*required, member)
		}
	}
}

func (b *schemaBuilder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// kv is a member of an ordered JSON object.
type kv struct {
	key   string
	value any
}

// ordered is a JSON object whose members keep their order, so that the
// document reads in the order it is written.
type ordered []kv

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
