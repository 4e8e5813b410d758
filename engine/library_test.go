package engine

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// note is a small variant written for these tests: the engine's own tests
// name no variant of the library.
func noteFS() fstest.MapFS {
	return fstest.MapFS{
		"schemas/note.schema.json": {Data: []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "additionalProperties": false, "required": ["title"],
  "properties": {
    "title": {"type": "string", "description": "The note's title."},
    "admin": {"type": "boolean", "default": false, "description": "Whether the reader is an admin."},
    "tags": {"type": "object", "default": {}, "additionalProperties": {"type": "string"}, "description": "Labels, in the caller's order."},
    "items": {"type": "array", "default": [], "description": "Entries.",
      "items": {"type": "object", "properties": {"id": {"type": "string"}, "done": {"type": "boolean", "default": false}}}},
    "refs": {"type": "array", "default": [], "items": {"type": "string"}, "description": "Ids of items."},
    "style": {"type": "string", "description": "A template under styles/."},
    "body": {"type": "string", "default": "", "description": "Text kept verbatim."}
  }
}`)},
		"templates/note/prompt.yaml": {Data: []byte(`description: A test note
sections: [title, items, tail]
join: "\n--\n"
ids:
  note_id: {of: [/title, /items], prefix: "n-", length: 8}
verbatim:
  - {name: body, field: /body, start: "<<<", end: ">>>", max_bytes: 20}
rules:
  unique: [/items/*/id]
  references: [{field: /refs/*, in: /items/*/id}]
  template_choice: [{field: /style, templates: "styles/*.md.tmpl"}]
checks:
  headings: ["# Note"]
  forbid:
    - {text: SECRET, when: "{{ not .admin }}"}
  require:
    - {text: "# Note"}
  max_bytes: 400
`)},
		"templates/note/title.md.tmpl": {Data: []byte("# Note\n\n{{ .title }} ({{ .note_id }})\n{{ range entries .tags }}- {{ .key }}={{ .value }}\n{{ end }}")},
		"templates/note/items.md.tmpl": {Data: []byte("{{ range .items }}{{ .id }}:{{ .done }}\n{{ end }}")},
		"templates/note/tail.md.tmpl": {Data: []byte("{{ with get . \"style\" }}{{ include (printf \"styles/%s.md.tmpl\" .) $ }}{{ end }}" +
			"<<<\n{{ .body }}\n>>>\n")},
		"templates/note/styles/plain.md.tmpl": {Data: []byte("plain\n")},
		"templates/note/styles/fancy.md.tmpl": {Data: []byte("{{ template \"_star.tmpl\" }}fancy\n")},
		"templates/note/_star.tmpl":           {Data: []byte("*")},
		"templates/note/examples/basic.yaml":  {Data: []byte("title: Hello\n")},
	}
}

func loadNote(t *testing.T, change func(fstest.MapFS)) (*Library, error) {
	t.Helper()
	fsys := noteFS()
	if change != nil {
		change(fsys)
	}
	return LoadStrict(fsys)
}

// mustLoadNote is loadNote for a change that leaves a library that loads.
func mustLoadNote(t *testing.T, change func(fstest.MapFS)) *Library {
	t.Helper()
	lib, err := loadNote(t, change)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func renderNote(t *testing.T, input string) (*Result, error) {
	t.Helper()
	lib := mustLoadNote(t, nil)
	return lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte(input)})
}

func TestRenderPipeline(t *testing.T) {
	t.Parallel()
	res, err := renderNote(t, "title: \"{{ .admin }}\"\ntags: {z: 1st, a: 2nd}\nitems: [{id: x}, {id: y, done: true}]\nstyle: fancy\nbody: \"raw {{ x }}\"\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Note\n\n{{ .admin }} (" + res.IDs["note_id"] + ")\n- z=1st\n- a=2nd\n" +
		"\n--\n" + "x:false\ny:true\n" +
		"\n--\n" + "*fancy\n<<<\nraw {{ x }}\n>>>\n"
	if res.Text != want {
		t.Fatalf("text:\n%q\nwant\n%q", res.Text, want)
	}
	if len(res.Sections) != 3 || res.Text[res.Sections[1].Start:res.Sections[1].End] != "x:false\ny:true\n" {
		t.Errorf("sections %+v", res.Sections)
	}
	if !strings.HasPrefix(res.IDs["note_id"], "n-") || len(res.IDs["note_id"]) != 10 {
		t.Errorf("id %q", res.IDs["note_id"])
	}
	if len(res.Regions) != 1 || res.Text[res.Regions[0].Start:res.Regions[0].End] != "raw {{ x }}" {
		t.Errorf("regions %+v", res.Regions)
	}
}

func TestEmptySectionsAreDropped(t *testing.T) {
	t.Parallel()
	res, err := renderNote(t, "title: T\n")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.Sections {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "title,tail" || strings.Count(res.Text, "\n--\n") != 1 {
		t.Errorf("sections %v in %q", names, res.Text)
	}
}

func TestInputRules(t *testing.T) {
	t.Parallel()
	cases := []struct{ input, field, reason string }{
		{"title: T\nitems: [{id: a}, {id: a}]\n", "/items/1/id", "repeats"},
		{"title: T\nitems: [{id: a}]\nrefs: [a, b]\n", "/refs/1", "not one of"},
		{"title: T\nstyle: fanci\n", "/style", "unknown value"},
		{"title: T\nbody: \"" + strings.Repeat("x", 21) + "\"\n", "/body", "over the limit of 20 bytes"},
		{"title: \"a >>> b\"\n", "/title", "marker text"},
		{"title: T\ntags: {\"k >>> v\": x}\n", "/tags/k >>> v", "marker text"},
		{"title: T\nbody: \"<<<\"\n", "/body", "never closed"},
		{"title: 1\n", "/title", "expected string"},
		{"titel: T\n", "/titel", "unknown field"},
		{"- a\n", "", "must be an object"},
		{"title: [unclosed\n", "", "invalid YAML"},
	}
	for _, c := range cases {
		_, err := renderNote(t, c.input)
		e := AsError(err)
		if e == nil || e.Kind != KindInput || e.Field != c.field || !strings.Contains(e.Reason, c.reason) {
			t.Errorf("%q: got %v (field %q), want %s at %q", c.input, err, e.Field, c.reason, c.field)
		}
	}
	_, err := renderNote(t, "title: T\nstyle: fanci\n")
	if msg := err.Error(); !strings.Contains(msg, `did you mean "fancy"?`) || !strings.Contains(msg, "fancy, plain") {
		t.Errorf("template choice hints: %s", msg)
	}
	_, err = renderNote(t, "titel: T\n")
	if msg := err.Error(); !strings.Contains(msg, `unknown field "titel"`) || !strings.Contains(msg, `did you mean "title"?`) {
		t.Errorf("all violations, with suggestions: %s", msg)
	}
	_, err = renderNote(t, "admin: true\n")
	if e := AsError(err); e.Field != "/title" || len(e.Hints) == 0 || e.Hints[0] != `add "title": The note's title.` {
		t.Errorf("a missing top-level field is described: %v", err)
	}
	_, err = renderNote(t, "title: T\nitems:\n  - id: 5\n")
	if e := AsError(err); e.Position != "in.yaml:3:5" {
		t.Errorf("position %q of %v", e.Position, err)
	}
}

// A property that a then branch forbids (a false schema) is refused with the
// description of the field, which says when it applies.
func TestFieldForbiddenByABranch(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, func(fsys fstest.MapFS) {
		fsys["schemas/note.schema.json"] = &fstest.MapFile{Data: []byte(`{
  "type": "object", "required": ["title"],
  "properties": {
    "title": {"type": "string", "description": "The note's title."},
    "admin": {"type": "boolean", "default": false, "description": "Whether the reader is an admin."},
    "style": {"const": false, "description": "Never set."},
    "body": {"type": "string", "default": "", "description": "Admins only: text kept verbatim."}
  },
  "if": {"properties": {"admin": {"const": false}}},
  "then": {"properties": {"body": false}}
}`)}
		fsys["templates/note/title.md.tmpl"] = &fstest.MapFile{Data: []byte("# Note\n")}
		fsys["templates/note/items.md.tmpl"] = &fstest.MapFile{Data: []byte("")}
		fsys["templates/note/tail.md.tmpl"] = &fstest.MapFile{Data: []byte("<<<\n{{ .body }}\n>>>\n")}
		delete(fsys, "templates/note/styles/plain.md.tmpl")
		delete(fsys, "templates/note/styles/fancy.md.tmpl")
		fsys["templates/note/prompt.yaml"] = &fstest.MapFile{Data: []byte("sections: [title, items, tail]\n" +
			"ids:\n  note_id: {of: [/title]}\nverbatim:\n  - {name: body, field: /body, start: \"<<<\", end: \">>>\"}\n")}
	})
	_, err := lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\nbody: x\n")})
	e := AsError(err)
	if e == nil || e.Field != "/body" || e.Reason != `"body" is not allowed here` ||
		len(e.Hints) == 0 || e.Hints[0] != "this field is: Admins only: text kept verbatim." {
		t.Errorf("got %#v", e)
	}
	if _, err := lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\nadmin: true\nbody: x\n")}); err != nil {
		t.Errorf("allowed for admins: %v", err)
	}
	// const false is a value, not a forbidden field.
	_, err = lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\nstyle: true\n")})
	if e := AsError(err); e == nil || e.Field != "/style" || strings.Contains(e.Reason, "not allowed here") {
		t.Errorf("const false: %v", err)
	}
}

func TestChecks(t *testing.T) {
	t.Parallel()
	res, err := renderNote(t, "title: SECRET\n")
	if e := AsError(err); e == nil || e.Kind != KindCheck || !strings.Contains(e.Reason, `forbid "SECRET"`) {
		t.Fatalf("forbid when not admin: %v", err)
	}
	if res == nil || res.OK() {
		t.Fatal("a failed check returns its Result")
	}
	if _, err := renderNote(t, "title: SECRET\nadmin: true\n"); err != nil {
		t.Errorf("forbid is off for admins: %v", err)
	}
	_, err = renderNote(t, "title: "+strings.Repeat("y", 400)+"\n")
	if e := AsError(err); e == nil || !strings.Contains(e.Reason, "max_bytes") {
		t.Errorf("max_bytes: %v", err)
	}
	_, err = renderNote(t, "title: \"x\\n\\n# Note\\n\"\n")
	if e := AsError(err); e == nil || !strings.Contains(e.Reason, "appears twice") {
		t.Errorf("a duplicated heading: %v", err)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(fstest.MapFS)
		want   string
	}{
		{"unknown manifest field", func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = append([]byte("sectons: [x]\n"), f["templates/note/prompt.yaml"].Data...)
		}, "templates/note/prompt.yaml:1: unknown field \"sectons\"\n  hint: did you mean \"sections\"?"},
		{"a manifest field of the wrong type", func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = []byte("sections: [title, items, tail]\nchecks:\n  max_bytes: lots\n")
		}, "templates/note/prompt.yaml:3: expected a whole number, got the text \"lots\""},
		{"a manifest line that breaks the YAML", func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = []byte("sections: [title, items, tail]\nchecks:\n  headings:\n    - \"# Note\"\n  max_bytes: 400\n forbid: []\n")
		}, "templates/note/prompt.yaml:6: invalid YAML"},
		{"section without a template", func(f fstest.MapFS) { delete(f, "templates/note/items.md.tmpl") }, `section "items" has no template`},
		{"template not in sections", func(f fstest.MapFS) { f["templates/note/extra.md.tmpl"] = &fstest.MapFile{Data: []byte("x")} }, "templates/note/extra.md.tmpl: template is not a listed section"},
		{"template syntax", func(f fstest.MapFS) { f["templates/note/items.md.tmpl"].Data = []byte("ok\n{{ range }}") }, "templates/note/items.md.tmpl:2:"},
		{"unknown function", func(f fstest.MapFS) { f["templates/note/items.md.tmpl"].Data = []byte("{{ now }}") }, `function "now" not defined`},
		{"missing schema", func(f fstest.MapFS) { delete(f, "schemas/note.schema.json") }, `schema "note" not found`},
		{"invalid schema", func(f fstest.MapFS) { f["schemas/note.schema.json"].Data = []byte(`{"type": 5}`) }, "schemas/note.schema.json"},
		{"schema not JSON", func(f fstest.MapFS) { f["schemas/note.schema.json"].Data = []byte("{\n  \"type\": \"object\",,\n}") }, "schemas/note.schema.json:2:"},
		{"bad pointer", func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = []byte("sections: [title]\nrules: {unique: [items]}\n")
		}, `"items" is not a JSON pointer`},
		{"choice without files", func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = []byte("sections: [title, items, tail]\nrules: {template_choice: [{field: /style, templates: \"moods/*.md.tmpl\"}]}\n")
		}, "no template matches"},
		{"id named like a field", func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = []byte("sections: [title, items, tail]\nids: {title: {of: [/title]}}\n")
		}, `id "title" has the name of an input field`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadNote(t, c.change)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestTemplateErrorsAtRender(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, func(f fstest.MapFS) {
		f["templates/note/items.md.tmpl"].Data = []byte("line one\n{{ .nosuch.field }}")
	})
	_, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\n")})
	e := AsError(err)
	if e.Kind != KindTemplate || !strings.HasPrefix(e.Position, "templates/note/items.md.tmpl:2:") || !strings.Contains(e.Error(), `no field "nosuch"`) {
		t.Fatalf("got %#v", e)
	}
	if !strings.Contains(e.Error(), `{{ if hasKey . "nosuch" }}`) {
		t.Errorf("the hint does not name the object to test: %s", e.Error())
	}
	if strings.Contains(e.Error(), "executing") {
		t.Errorf("Go internals leak into the message: %s", e.Error())
	}
}

func TestUnknownVariantAndExample(t *testing.T) {
	t.Parallel()
	lib, _ := loadNote(t, nil)
	if _, err := lib.Variant("nte"); err == nil || !strings.Contains(err.Error(), `did you mean "note"?`) {
		t.Errorf("variant: %v", err)
	}
	v, _ := lib.Variant("note")
	if _, err := v.Example("basc"); err == nil || !strings.Contains(err.Error(), `did you mean "basic"?`) {
		t.Errorf("example: %v", err)
	}
	if in, err := v.Example("basic"); err != nil || in.Name != "templates/note/examples/basic.yaml" {
		t.Errorf("example: %v %q", err, in.Name)
	}
}

// TestDefaultsKeepKeyOrder: fields the schema fills in come after the
// caller's, whose order is kept.
func TestDefaultsKeepKeyOrder(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, func(f fstest.MapFS) {
		f["templates/note/title.md.tmpl"].Data = []byte("# Note\n{{ keys . | join \",\" }}\n")
	})
	res, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte(`{"title": "T", "tags": {}, "refs": []}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "title,tags,refs,admin,items,body,note_id"; !strings.Contains(res.Text, want) {
		t.Errorf("keys in %q, want %s", res.Text, want)
	}
}

// TestIncludeRecursionIsAnError: a template that includes itself stops with
// an error naming it, instead of exhausting the stack.
func TestIncludeRecursionIsAnError(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, func(f fstest.MapFS) {
		f["templates/note/styles/plain.md.tmpl"].Data = []byte(`{{ include "styles/plain.md.tmpl" . }}`)
	})
	_, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\nstyle: plain\n")})
	if e := AsError(err); e == nil || e.Kind != KindTemplate || !strings.Contains(e.Reason, `template "styles/plain.md.tmpl": templates call each other too deeply`) {
		t.Fatalf("got %v", err)
	}
}

// TestUnclosedActionNamesItsOpening: an {{if}} without {{end}} is reported
// where it opens, not at the end of the file.
func TestUnclosedActionNamesItsOpening(t *testing.T) {
	t.Parallel()
	src := "line one\n{{ range .items }}\n{{ if .done }}x{{ end }}\n  {{- if .id }}\n{{/* }} {{ end */}}\n{{ \"}}\" }}\n{{ end }}\nmore\nlines\n"
	// The last {{ end }} closes the second if: the range is what stays open.
	_, err := loadNote(t, func(f fstest.MapFS) { f["templates/note/items.md.tmpl"].Data = []byte(src) })
	e := AsError(err)
	if e == nil || e.Position != "templates/note/items.md.tmpl:2:1" || !strings.Contains(e.Reason, "{{range}} opened at templates/note/items.md.tmpl:2:1 is never closed") {
		t.Fatalf("got %v", err)
	}
}
