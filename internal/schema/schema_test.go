package schema_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// The schemas of a small library. note is written one property a line, so
// that positions in it are easy to tell.
var library = fstest.MapFS{
	"schemas/clock.schema.json": {Data: []byte(`{"type": "object", "properties": {"at": {"type": "string", "format": "date-time", "description": "When."}}}`)},
	"schemas/note.schema.json": {Data: []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "additionalProperties": false, "required": ["title", "kind"],
  "properties": {
    "title": {"type": "string", "description": "The note's title."},
    "kind": {"enum": ["memo", "todo"], "description": "What the note is."},
    "admin": {"type": "boolean", "default": false, "description": "Whether the reader is an admin."},
    "meta": {"$ref": "common.schema.json#/$defs/meta", "description": "Where it came from."},
    "items": {"type": "array", "default": [], "description": "Entries.",
      "items": {"type": "object", "required": ["id"], "additionalProperties": false,
        "properties": {"id": {"type": "string", "pattern": "^[a-z]+$", "description": "Id."}, "done": {"type": "boolean", "default": false, "description": "Done."}}}},
    "count": {"type": "integer", "minimum": 0, "description": "A count."},
    "groups": {"type": "object", "description": "Groups by name.",
      "additionalProperties": {"type": "object", "properties": {"color": {"type": "string", "default": "grey", "description": "Color."}}}},
    "list": {"type": "array", "items": {"type": "integer"}, "description": "Numbers."},
    "options": {"type": "object", "default": {"depth": 1, "tags": []}, "description": "Options."}
  }
}`)},
	"schemas/common.schema.json": {Data: []byte(`{
  "$defs": {
    "meta": {"type": "object", "properties": {
      "source": {"type": "string", "default": "unknown", "description": "Source."},
      "zone": {"type": "string", "description": "Zone."}}}
  }
}`)},
	// cond allows x only in mode a, and requires it there.
	"schemas/cond.schema.json": {Data: []byte(`{
  "type": "object",
  "properties": {
    "mode": {"enum": ["a", "b"], "description": "The mode."},
    "x": {"type": "string", "description": "Only in mode a."}
  },
  "required": ["mode"],
  "if": {"properties": {"mode": {"const": "a"}}},
  "then": {"required": ["x"]},
  "else": {"properties": {"x": false}}
}`)},
	"schemas/open.schema.json": {Data: []byte(`{"type": "object"}`)},
	"schemas/lint.schema.json": {Data: []byte(`{
  "type": "object",
  "properties": {
    "a": {"type": "string", "default": 5},
    "b": {"type": "integer", "examples": [1, "x"], "description": "B."},
    "c": {"type": "object", "description": "C.", "properties": {
      "d": {"enum": ["x", "y"], "default": "z", "description": "D."}}},
    "e": false,
    "f": {"type": "string", "description": "F.", "x-promptsmith-allow-bidi": "yes"},
    "g": {"type": "string", "description": "G.", "x-promptsmith-allow-bidi": true}
  }
}`)},
	// required names what its object does not allow or declare, in every
	// place a required list may be; each line says what Lint should say.
	"schemas/required.schema.json": {Data: []byte(`{
  "type": "object", "additionalProperties": false,
  "required": ["name", "nmae", "creator", "gone"],
  "properties": {
    "name": {"type": "string", "description": "Name."},
    "gone": false,
    "list": {"type": "array", "description": "L.", "items": {"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string", "description": "Id."}},
      "required": ["idd"]}},
    "ref": {"$ref": "#/$defs/closed", "description": "R."},
    "open": {"type": "object", "description": "O.", "properties": {"zone": {"type": "string", "description": "Z."}},
      "required": ["zonee", "x-extra", "zone"], "patternProperties": {"^x-": {"type": "string"}},
      "allOf": [{"required": ["zone"]}],
      "anyOf": [{"required": ["ozne"]}, {"required": ["zone"]}],
      "if": {"required": ["legacy"]}, "then": {"required": ["zone"]},
      "not": {"required": ["old"]}},
    "free": {"type": "object", "description": "F.", "required": ["anything"]},
    "map": {"type": "object", "description": "M.", "properties": {"a": {"type": "string", "description": "A."}},
      "additionalProperties": {"type": "string"}, "required": ["b"]}
  },
  "$defs": {"closed": {"type": "object", "additionalProperties": false, "properties": {"k": {"type": "string", "description": "K."}},
    "required": ["kk"]}}
}`)},
	"schemas/broken.schema.json":      {Data: []byte("{\n  \"type\": \"object\",\n  \"properties\": {\n}")},
	"schemas/badtype.schema.json":     {Data: []byte(`{"type": "objekt"}`)},
	"schemas/deeptype.schema.json":    {Data: []byte("{\"type\": \"object\",\n \"properties\": {\"a\": {\"type\": [\"strng\", \"null\"]}}}")},
	"schemas/badrequired.schema.json": {Data: []byte("{\"type\": \"object\",\n \"required\": \"a\"}")},
	"schemas/remote.schema.json":      {Data: []byte(`{"$ref": "https://example.com/x.json"}`)},
	"schemas/missing.schema.json":     {Data: []byte(`{"$ref": "gone.schema.json"}`)},
}

func load(t *testing.T, name string) *schema.Schema {
	t.Helper()
	set, err := schema.Load(library, "lib")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := set.Get(name)
	if err != nil || sc == nil {
		t.Fatalf("Get(%q) = %v, %v", name, sc, err)
	}
	return sc
}

func decode(t *testing.T, src string) *input.Document {
	t.Helper()
	name := "in.yaml"
	if strings.HasPrefix(src, "{") {
		name = "in.json"
	}
	doc, err := input.Decode(input.Input{Name: name, Data: []byte(src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestGet holds that Get compiles a schema of the library by name, that a
// name without a file is nil without an error, and that a schema that does
// not load is an error at its file saying why, every time it is asked for.
func TestGet(t *testing.T) {
	cases := []struct {
		name   string
		found  bool
		errors string // the error's first line
	}{
		{"note", true, ""},
		{"common", true, ""},
		{"nope", false, ""},
		{"broken", false, "lib/schemas/broken.schema.json:4:2: invalid JSON: unexpected end of input in an object"},
		// A schema the meta-schema refuses is an error at the value refused,
		// with the type meant for one that is not a type.
		{"badtype", false, `lib/schemas/badtype.schema.json:1:2: "objekt" is not a type of JSON Schema (at /type)`},
		{"deeptype", false, `lib/schemas/deeptype.schema.json:2:32: "strng" is not a type of JSON Schema (at /properties/a/type/0)`},
		{"badrequired", false, `lib/schemas/badrequired.schema.json:2:2: not a valid JSON Schema at /required: expected array, but got string`},
		{"remote", false, "lib/schemas/remote.schema.json: schema does not compile: jsonschema schemas/remote.schema.json compilation failed: " +
			`https://example.com/x.json is not a schema of the library: a $ref may name only another file of schemas/, as "common.schema.json#/$defs/name"`},
		{"missing", false, "lib/schemas/missing.schema.json: schema does not compile: jsonschema schemas/missing.schema.json compilation failed: " +
			`gone.schema.json is not a schema of the library: a $ref may name only another file of schemas/, as "common.schema.json#/$defs/name"`},
	}
	set, err := schema.Load(library, "lib")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 2 {
				sc, err := set.Get(c.name)
				first := ""
				if err != nil {
					first, _, _ = strings.Cut(err.Error(), "\n")
					if e := problem.As(err); e.Kind != problem.KindTemplate {
						t.Errorf("the error is of kind %s", e.Kind)
					}
				}
				if (sc != nil) != c.found || first != c.errors {
					t.Fatalf("Get(%q) = %v, %q; want found %v, %q", c.name, sc != nil, first, c.found, c.errors)
				}
				if sc != nil && sc.Name() != c.name {
					t.Errorf("Name() = %q", sc.Name())
				}
			}
		})
	}
	if _, err := set.Get("deeptype"); err == nil || !strings.Contains(err.Error(), `did you mean "string"? write "type": "string"`) {
		t.Errorf("a type that is not one, without the type meant: %v", err)
	}
	a, _ := set.Get("note")
	if b, _ := set.Get("note"); a != b {
		t.Error("a second Get compiled the schema again")
	}
}

// TestProperties holds that Properties lists the top-level properties in
// the order the schema writes them, not sorted.
func TestProperties(t *testing.T) {
	cases := []struct {
		name string
		want []string
	}{
		{"note", []string{"title", "kind", "admin", "meta", "items", "count", "groups", "list", "options"}},
		{"cond", []string{"mode", "x"}},
		{"open", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := load(t, c.name).Properties(); !slices.Equal(got, c.want) {
				t.Errorf("Properties() = %q, want %q", got, c.want)
			}
		})
	}
}

// violations writes an error of Validate one problem a line, as
// "field @ position: reason | hint | hint".
func violations(err error) []string {
	if err == nil {
		return nil
	}
	e := problem.As(err)
	var out []string
	for _, x := range append([]*problem.Error{e}, e.Also...) {
		out = append(out, strings.Join(append([]string{fmt.Sprintf("%s @ %s: %s", x.Field, x.Position, x.Reason)}, x.Hints...), " | "))
	}
	return out
}

// TestValidate holds that each violation of the schema is an input error
// naming the JSON pointer of the field and where the input writes it (or
// the object it is missing from), in pointer order, with a hint saying what
// to do: the description of a missing field, the closest allowed name of an
// unknown one and every allowed name, what a field is and what it got.
func TestValidate(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := []struct {
		name   string
		schema string
		input  string
		want   []string
	}{
		{"valid", "note", "title: T\nkind: memo\n", nil},
		{"required", "note", "title: T\n", []string{`/kind @ in.yaml:1:1: required field is missing | add "kind": What the note is.`}},
		{"required in JSON, in pointer order", "note", "{}", []string{
			`/kind @ : required field is missing | add "kind": What the note is.`,
			`/title @ : required field is missing | add "title": The note's title.`}},
		{"required, but the schema allows no value for it", "required", "name: N\nnmae: x\n", []string{
			`/creator @ in.yaml:1:1: required field is missing | no input can give it: the schema requires "creator" but its additionalProperties is false and its properties leave it out; fix the schema at lib/schemas/required.schema.json:3:32`,
			`/gone @ in.yaml:1:1: required field is missing | no input can give it: the schema requires "gone" but its schema for it is false; fix the schema at lib/schemas/required.schema.json:3:43`,
			`/nmae @ in.yaml:2:1: unknown field "nmae" | did you mean "name"? | the fields allowed here are: name, gone, list, ref, open, free, map`}},
		{"unknown field", "note", "title: T\nkind: memo\ntitel: x\n", []string{
			`/titel @ in.yaml:3:1: unknown field "titel" | did you mean "title"? | the fields allowed here are: title, kind, admin, meta, items, count, groups, list, options`}},
		{"unknown field, no near name", "note", "title: T\nkind: memo\nzzzzzzzz: x\n", []string{
			`/zzzzzzzz @ in.yaml:3:1: unknown field "zzzzzzzz" | the fields allowed here are: title, kind, admin, meta, items, count, groups, list, options`}},
		{"enum", "note", "title: T\nkind: note\n", []string{
			`/kind @ in.yaml:2:1: value must be one of "memo", "todo" | this field is: What the note is. | got "note"`}},
		{"enum, a long value not echoed", "note", "title: T\nkind: " + long + "\n", []string{
			`/kind @ in.yaml:2:1: value must be one of "memo", "todo" | this field is: What the note is.`}},
		{"type", "note", "title: 5\nkind: memo\n", []string{
			`/title @ in.yaml:1:1: expected string, but got number | this field is: The note's title. | got 5`}},
		{"minimum", "note", "title: T\nkind: memo\ncount: -1\n", []string{`/count @ in.yaml:3:1: must be >= 0 but found -1 | got -1`}},
		{"pattern", "note", "title: T\nkind: memo\nitems: [{id: A1}]\n", []string{
			`/items/0/id @ in.yaml:3:10: does not match pattern '^[a-z]+$' | this field is: Id. | got "A1"`}},
		{"inside a list", "note", "title: T\nkind: memo\nitems: [{id: a}, {idd: b}]\n", []string{
			`/items/1/id @ in.yaml:3:18: required field is missing | add "id": Id.`,
			`/items/1/idd @ in.yaml:3:19: unknown field "idd" | did you mean "id"? | the fields allowed here are: id, done`}},
		{"through a $ref", "note", "title: T\nkind: memo\nmeta:\n  zone: 5\n", []string{
			`/meta/zone @ in.yaml:4:3: expected string, but got number | this field is: Zone. | got 5`}},
		{"additionalProperties with a schema", "note", "title: T\nkind: memo\ngroups: {a: {color: 1}}\n", []string{
			`/groups/a/color @ in.yaml:3:14: expected string, but got number | this field is: Color. | got 1`}},
		{"required in a then branch", "cond", "mode: a\n", []string{`/x @ in.yaml:1:1: required field is missing | add "x": Only in mode a.`}},
		{"a field a branch forbids", "cond", "mode: b\nx: y\n", []string{`/x @ in.yaml:2:1: "x" is not allowed here | this field is: Only in mode a.`}},
		{"allowed in the other branch", "cond", "mode: a\nx: y\n", nil},
		{"a date-time", "clock", "at: 2026-03-02T12:00:00.5+01:00\n", nil},
		{"a date-time with a sign for digits", "clock", "at: \"2026-03-02T12:-0:00Z\"\n", []string{
			`/at @ in.yaml:1:1: '2026-03-02T12:-0:00Z' is not valid 'date-time' | this field is: When. | got "2026-03-02T12:-0:00Z"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := load(t, c.schema).Validate(decode(t, c.input))
			if got := violations(err); !slices.Equal(got, c.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
			if err != nil && problem.As(err).Kind != problem.KindInput {
				t.Errorf("kind %s", problem.As(err).Kind)
			}
		})
	}
}

// TestValidateBounded holds that one error lists at most 20 violations.
func TestValidateBounded(t *testing.T) {
	err := load(t, "note").Validate(decode(t, "title: T\nkind: memo\nlist: ["+strings.Repeat("x, ", 29)+"x]\n"))
	if got := violations(err); len(got) != 20 {
		t.Errorf("%d violations listed, want 20", len(got))
	}
}

// TestValidateNumericOrder holds that the violations of a list's elements
// come in the order of the elements, and that the first 20 are kept.
func TestValidateNumericOrder(t *testing.T) {
	err := load(t, "note").Validate(decode(t, "title: T\nkind: memo\nlist: ["+strings.Repeat("x, ", 29)+"x]\n"))
	e := problem.As(err)
	var got []string
	for _, x := range append([]*problem.Error{e}, e.Also...) {
		got = append(got, x.Field)
	}
	var want []string
	for i := range 20 {
		want = append(want, fmt.Sprintf("/list/%d", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("fields %q\nwant %q", got, want)
	}
}

// TestApplyDefaults holds that defaults fill in missing fields only, through
// properties, list items, additionalProperties and $ref, each after the
// keys the input wrote, and that a default's value is the document's own.
func TestApplyDefaults(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  string
	}{
		{"top level", "title: T\nkind: memo\n",
			`{"title":"T","kind":"memo","admin":false,"items":[],"options":{"depth":1,"tags":[]}}`},
		{"never over what is written", "admin: true\ntitle: T\nkind: memo\nitems: []\noptions: {}\n",
			`{"admin":true,"title":"T","kind":"memo","items":[],"options":{}}`},
		{"items and $ref", "title: T\nkind: memo\nmeta: {zone: z}\nitems: [{id: a}, {id: b, done: true}]\n",
			`{"title":"T","kind":"memo","meta":{"zone":"z","source":"unknown"},"items":[{"id":"a","done":false},{"id":"b","done":true}],"admin":false,"options":{"depth":1,"tags":[]}}`},
		{"additionalProperties", "groups: {b: {}, a: {color: red}}\n",
			`{"groups":{"b":{"color":"grey"},"a":{"color":"red"}},"admin":false,"items":[],"options":{"depth":1,"tags":[]}}`},
		{"not into a value of another type", "items: 3\nmeta: x\n",
			`{"items":3,"meta":"x","admin":false,"options":{"depth":1,"tags":[]}}`},
	}
	sc := load(t, "note")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := decode(t, c.input)
			sc.ApplyDefaults(doc)
			if got := string(input.AppendJSON(nil, doc.Root, doc.Order(), false)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	a, b := decode(t, "{}"), decode(t, "{}")
	sc.ApplyDefaults(a)
	sc.ApplyDefaults(b)
	a.Root["options"].(map[string]any)["depth"] = int64(9)
	if got := b.Root["options"].(map[string]any)["depth"]; got != int64(1) {
		t.Errorf("two documents share a default: the second's depth is %v", got)
	}
}

// TestUndeclared holds that Undeclared objects to a pointer only where the
// schema is sure it names no field (properties without it and
// additionalProperties false) or where it goes into an array, and says
// nothing where the schema allows other fields.
func TestUndeclared(t *testing.T) {
	cases := []struct {
		ptr  string
		want string
	}{
		{"", ""},
		{"/title", ""},
		{"/items", ""},
		{"/nope", `the schema declares no field "nope" there`},
		{"/items/0/id", "the field is inside an array; a probe fills a whole field, such as the array itself"},
		{"/meta/zone", ""},
		{"/meta/other", ""},
		{"/groups/any", ""},
		{"/groups/any/color", ""},
		{"/options/anything", ""},
	}
	sc := load(t, "note")
	for _, c := range cases {
		t.Run(c.ptr, func(t *testing.T) {
			if got := sc.Undeclared(c.ptr); got != c.want {
				t.Errorf("Undeclared(%q) = %q, want %q", c.ptr, got, c.want)
			}
		})
	}
}

// TestNode holds what a place in the schema says of a field, as lint reads
// it: declared, allowed (an open object or additionalProperties) or
// unknown; the names it declares; and whether it is optional (neither
// required anywhere nor given a default).
func TestNode(t *testing.T) {
	sc := load(t, "note")
	root := sc.Root()
	field := func(n schema.Node, name string) schema.Node {
		f, _ := n.Field(name)
		return f
	}
	cases := []struct {
		name     string
		node     schema.Node
		field    string
		status   schema.FieldStatus
		optional bool
		names    []string // of the field's node
	}{
		{"required", root, "title", schema.Declared, false, nil},
		{"with a default", root, "admin", schema.Declared, false, nil},
		{"optional", root, "count", schema.Declared, true, nil},
		{"through a $ref", root, "meta", schema.Declared, true, []string{"source", "zone"}},
		{"unknown", root, "titel", schema.Unknown, true, nil},
		{"of a $ref", field(root, "meta"), "zone", schema.Declared, true, nil},
		{"of a $ref, with a default", field(root, "meta"), "source", schema.Declared, false, nil},
		{"of a $ref, which describes it whole", field(root, "meta"), "other", schema.Unknown, true, nil},
		{"of list items", field(root, "items").Elem(), "done", schema.Declared, false, nil},
		{"of list items, unknown", field(root, "items").Elem(), "idd", schema.Unknown, true, nil},
		{"additionalProperties", field(root, "groups"), "any", schema.Allowed, true, []string{"color"}},
		{"an object that names nothing", field(root, "options"), "depth", schema.Allowed, true, nil},
		{"a string has no fields", field(root, "title"), "length", schema.Unknown, true, nil},
		{"in a then branch", load(t, "cond").Root(), "x", schema.Declared, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, status := c.node.Field(c.field)
			if status != c.status {
				t.Errorf("Field(%q) status %d, want %d", c.field, status, c.status)
			}
			if got := c.node.Optional(c.field); got != c.optional {
				t.Errorf("Optional(%q) = %v, want %v", c.field, got, c.optional)
			}
			if got := n.Names(); !slices.Equal(got, c.names) {
				t.Errorf("Names() of %q = %q, want %q", c.field, got, c.names)
			}
		})
	}
	if got, want := root.Names(), []string{"admin", "count", "groups", "items", "kind", "list", "meta", "options", "title"}; !slices.Equal(got, want) {
		t.Errorf("root Names() = %q, want %q (sorted)", got, want)
	}
	if !load(t, "open").Root().Elem().Open() || root.Open() {
		t.Error("Open: an open object's values say nothing; the note schema does")
	}
}

// TestLint holds what Lint finds in a schema as written: a default or an
// example that the schema it stands in refuses (an error, at the keyword),
// and a property without a description (a warning, at the property), but
// not a property whose schema is false nor one that a condition restates.
// The order is TestLintOrder's to hold.
func TestLint(t *testing.T) {
	cases := []struct {
		name string
		want []string
	}{
		{"note", nil},
		{"cond", nil},
		{"required", []string{
			`lib/schemas/required.schema.json:3:24 error: "nmae" is required but not among the properties this object allows (additionalProperties is false), so no input can satisfy it; did you mean "name"? Else declare "nmae" under properties, or remove it from required`,
			`lib/schemas/required.schema.json:3:32 error: "creator" is required but not among the properties this object allows (additionalProperties is false), so no input can satisfy it; declare "creator" under properties, or remove it from required`,
			`lib/schemas/required.schema.json:3:43 error: "gone" is required but its schema is false, which allows no value, so no input can satisfy it; give it a schema, or remove it from required`,
			`lib/schemas/required.schema.json:8:20 error: "idd" is required but not among the properties this object allows (additionalProperties is false), so no input can satisfy it; did you mean "id"? Else declare "idd" under properties, or remove it from required`,
			`lib/schemas/required.schema.json:11:20 warning: "zonee" is required but not declared under properties (a typo?): an input must give it, yet nothing says what it is; did you mean "zone"? Else declare "zonee" under properties, or remove it from required`,
			`lib/schemas/required.schema.json:13:31 warning: "ozne" is required but not declared under properties (a typo?): an input must give it, yet nothing says what it is; did you mean "zone"? Else declare "ozne" under properties, or remove it from required`,
			`lib/schemas/required.schema.json:21:18 error: "kk" is required but not among the properties this object allows (additionalProperties is false), so no input can satisfy it; did you mean "k"? Else declare "kk" under properties, or remove it from required`,
		}},
		{"lint", []string{
			"lib/schemas/lint.schema.json:4:5 warning: property a has no description: callers see it in error hints and typed inputs; add one",
			"lib/schemas/lint.schema.json:4:29 error: the default is not valid here: expected string, but got number",
			"lib/schemas/lint.schema.json:5:30 error: an example is not valid here: expected integer, but got string",
			"lib/schemas/lint.schema.json:7:33 error: the default is not valid here: value must be one of \"x\", \"y\"",
			"lib/schemas/lint.schema.json:9:50 error: x-promptsmith-allow-bidi must be true or false: anything else allows nothing",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, p := range load(t, c.name).Lint() {
				sev := "error"
				if p.Warning {
					sev = "warning"
				}
				got = append(got, p.Position+" "+sev+": "+p.Message)
			}
			if !slices.Equal(byLine(got), c.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// byLine sorts lines that start with file:line:col by line, then column.
func byLine(lines []string) []string {
	key := func(s string) (int, int) {
		var line, col int
		pos, _, _ := strings.Cut(s, " ")
		parts := strings.Split(pos, ":")
		fmt.Sscan(parts[len(parts)-2], &line)
		fmt.Sscan(parts[len(parts)-1], &col)
		return line, col
	}
	out := slices.Clone(lines)
	slices.SortStableFunc(out, func(a, b string) int {
		la, ca := key(a)
		lb, cb := key(b)
		if la != lb {
			return la - lb
		}
		return ca - cb
	})
	return out
}

// TestLintOrder holds that Lint lists its problems in the order of their
// positions in the file.
func TestLintOrder(t *testing.T) {
	var got []string
	for _, p := range load(t, "lint").Lint() {
		got = append(got, p.Position)
	}
	want := []string{"lib/schemas/lint.schema.json:4:5", "lib/schemas/lint.schema.json:4:29",
		"lib/schemas/lint.schema.json:5:30", "lib/schemas/lint.schema.json:7:33", "lib/schemas/lint.schema.json:9:50"}
	if !slices.Equal(got, want) {
		t.Errorf("positions %q, want %q", got, want)
	}
}

// TestValidateForeignValue holds that a value no JSON document holds is
// refused as an input error, never a panic.
func TestValidateForeignValue(t *testing.T) {
	doc := decode(t, "title: T\nkind: memo\n")
	doc.Root["count"] = "not a number"
	err := load(t, "note").Validate(doc)
	var e *problem.Error
	if !errors.As(err, &e) || e.Field != "/count" || e.Reason != "expected integer, but got string" {
		t.Errorf("Validate = %v", err)
	}
}
