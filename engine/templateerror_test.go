package engine

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// mistake is an author's mistake in a library and what its error must say:
// the position where the author acts, and phrases of the reason and hints.
type mistake struct {
	name   string
	change func(fstest.MapFS)
	input  string // rendered when the library loads; "" renders nothing
	pos    string
	reason []string
	hints  []string
}

// checkInNote checks each mistake, a subtest of its own, in the note
// variant.
func checkInNote(t *testing.T, cases []mistake) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, noteFS(), "note") })
	}
}

// check loads the changed library and renders the input, and holds the
// first error to the mistake's position and phrases.
func (m mistake) check(t *testing.T, fsys fstest.MapFS, variant string) {
	t.Helper()
	if m.change != nil {
		m.change(fsys)
	}
	lib, err := LoadStrict(fsys)
	if err == nil && m.input != "" {
		_, err = lib.Render(context.Background(), variant, Input{Name: "in.yaml", Data: []byte(m.input)})
	}
	e := AsError(err)
	if e == nil {
		t.Fatal("no error")
	}
	if e.Position != m.pos {
		t.Errorf("position %s, want %s\n%v", e.Position, m.pos, e)
	}
	for _, want := range m.reason {
		if !strings.Contains(e.Reason, want) {
			t.Errorf("the reason lacks %q:\n%v", want, e)
		}
	}
	hints := strings.Join(e.Hints, "\n")
	for _, want := range m.hints {
		if !strings.Contains(hints, want) {
			t.Errorf("the hints lack %q:\n%v", want, e)
		}
	}
	if strings.Contains(e.Error(), "executing") || strings.Contains(e.Error(), "interface {}") {
		t.Errorf("Go internals leak into the message:\n%v", e)
	}
}

func items(src string) func(fstest.MapFS) {
	return func(f fstest.MapFS) { f["templates/note/items.md.tmpl"].Data = []byte(src) }
}

const withItems = "title: T\nitems: [{id: a}]\n"

// TestFieldMistakes: a field the input lacks at render time is said from
// the schema's side, at the column of the name that is wrong: the name the
// author most likely meant, or that the schema has no such property and
// where to add it, or, for a property the schema declares but does not
// require, how to guard it; inside with or range, a top-level field read
// from the dot is read from $.
func TestFieldMistakes(t *testing.T) {
	t.Parallel()
	cases := []mistake{
		{name: "misspelt at the top", change: items("line one\n{{ .titel }}\n"), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:2:4",
			reason: []string{`.titel: the input has no field "titel", and schemas/note.schema.json defines none`},
			hints:  []string{"did you mean .title? write .title", `if "titel" is a new field, add it to properties in schemas/note.schema.json`}},
		{name: "misspelt inside range", change: items("{{ range .items }}{{ .id }}={{ .dnoe }}\n{{ end }}"), input: withItems,
			pos:    "templates/note/items.md.tmpl:1:32",
			reason: []string{`.dnoe: .items[] has no field "dnoe"`},
			hints:  []string{"did you mean .done? write .done"}},
		{name: "misspelt after a variable", change: items("{{ $t := . }}{{ $t.titel }}"), input: "title: T\n",
			pos:   "templates/note/items.md.tmpl:1:19",
			hints: []string{"did you mean .title? write $t.title"}},
		{name: "misspelt second name", change: items("{{ range .items }}{{ .id.x }}{{ end }}{{ .tags.k }}"), input: "title: T\n",
			// .tags allows any name: nothing to say but the generic hint.
			pos:   "templates/note/items.md.tmpl:1:47",
			hints: []string{`test for it with {{ if hasKey .tags "k" }}`}},
		{name: "misspelt inside range over concat", change: items(`{{ range concat (where "id" "a" .items) (whereNot "id" "a" .items) }}{{ .dnoe }}{{ end }}`), input: withItems,
			// concat of one list of the schema, filtered: its items are the list's.
			pos:    "templates/note/items.md.tmpl:1:73",
			reason: []string{`.dnoe: .items[] has no field "dnoe"`},
			hints:  []string{"did you mean .done? write .done"}},
		{name: "a field of what no schema tells", change: items(`{{ range concat .items (list (dict "x" 1)) }}{{ .dnoe }}{{ end }}`), input: withItems,
			// Nothing known of the items: no advice about the schema.
			pos:   "templates/note/items.md.tmpl:1:49",
			hints: []string{`the value here has no field "dnoe": check the name against what the value holds; if it may be left out, test for it with {{ if hasKey . "dnoe" }} or read it with get . "dnoe"`}},
		{name: "no such property at the top", change: items("{{ .preferredLanguage }}"), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{`the input has no field "preferredLanguage", and schemas/note.schema.json defines none`},
			hints: []string{"the schema has no such property: add it to properties in schemas/note.schema.json",
				`the fields of the input are: admin, body, items, refs, style, tags, title, note_id, budget`,
				`read it with {{ if hasKey . "preferredLanguage" }} unless it is required or has a "default"`}},
		{name: "no such property, with ids", change: func(f fstest.MapFS) {
			items("{{ .preferredLanguage }}")(f)
			m := string(f["templates/note/prompt.yaml"].Data)
			f["templates/note/prompt.yaml"].Data = []byte(strings.Replace(m, "  note_id:", "  zeta_id: {of: [/title], prefix: \"z-\", length: 8}\n  alpha_id: {of: [/title], prefix: \"a-\", length: 8}\n  note_id:", 1))
		}, input: "title: T\n",
			// the manifest's ids in the order of their names, whatever a map's
			pos:   "templates/note/items.md.tmpl:1:4",
			hints: []string{`the fields of the input are: admin, body, items, refs, style, tags, title, alpha_id, note_id, zeta_id, budget`}},
		{name: "no such property after a variable", change: items("{{ $a := . }}{{ $a.preferredLanguage }}"), input: "title: T\n",
			pos:   "templates/note/items.md.tmpl:1:19",
			hints: []string{`read it with {{ if hasKey $a "preferredLanguage" }}`}},
		{name: "no such property deeper", change: items("{{ range .items }}{{ .assignee.name }}{{ end }}"), input: withItems,
			pos:    "templates/note/items.md.tmpl:1:22",
			reason: []string{`.assignee.name: .items[] has no field "assignee"`},
			hints:  []string{"the schema has no such property: add it to the properties of .items[] in schemas/note.schema.json"}},
		{name: "optional and left out", change: items("x\n  {{ .style }}"), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:2:6",
			reason: []string{`.style: this input has no field "style" in the input; the schema allows it to be left out`},
			hints:  []string{`give it a "default" in schemas/note.schema.json, or test for it with {{ if hasKey . "style" }}`}},
		{name: "the input inside range", change: items("{{ range .items }}{{ if .admin }}!{{ end }}{{ .id }}\n{{ end }}"), input: withItems,
			pos:    "templates/note/items.md.tmpl:1:25",
			reason: []string{`.admin reads "admin" from the dot, which inside the {{ range }} of line 1 is the current item (which has no field "admin"), not the input`},
			hints:  []string{"inside with/range the dot is the current item; the top-level input is $: write $.admin"}},
		{name: "the input inside with", change: items("{{ with .title }}\n{{ .title }}{{ end }}"), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:2:4",
			reason: []string{"inside the {{ with }} of line 1 is the value it tests (a text, which has no fields)"},
			hints:  []string{"the top-level input is $: write $.title"}},
		{name: "a path of the input inside with", change: items("{{ with .items }}{{ .tags.x }}{{ end }}"), input: withItems,
			pos:   "templates/note/items.md.tmpl:1:21",
			hints: []string{"write $.tags.x"}},
		{name: "an optional field of the item inside range", change: func(f fstest.MapFS) {
			f["schemas/note.schema.json"].Data = []byte(strings.Replace(string(f["schemas/note.schema.json"].Data),
				`"id": {"type": "string"}`, `"id": {"type": "string"}, "title": {"type": "string"}`, 1))
			items("{{ range .items }}{{ .title }}{{ end }}")(f)
		}, input: withItems,
			// The item declares title too: it is the item's that is missing, not $.
			pos:    "templates/note/items.md.tmpl:1:22",
			reason: []string{`.title: this input has no field "title" in .items[]; the schema allows it to be left out`},
			hints:  []string{`test for it with {{ if hasKey . "title" }}`}},
		{name: "a field of the item inside range", change: items("{{ range .items }}{{ .title }}{{ end }}"), input: withItems,
			// .title is the input's, but the item is what the author may mean too:
			// the dot is rebound, so $ is what to say.
			pos:   "templates/note/items.md.tmpl:1:22",
			hints: []string{"write $.title"}},
	}
	checkInNote(t, cases)
}

// TestFunctionMistakes: a function that is not there is reported at its
// line and column: a misspelling with the function meant; one left out on
// purpose with why, and what to write instead; date without a time.
func TestFunctionMistakes(t *testing.T) {
	t.Parallel()
	cases := []mistake{
		{name: "misspelt", change: items("line one\n  {{ .title | uper }}\n"),
			pos:    "templates/note/items.md.tmpl:2:15",
			reason: []string{`function "uper" not defined`},
			hints:  []string{"did you mean upper?", "templates/README.md lists the functions"}},
		{name: "the same word as text before it", change: items("uper: {{ uper .title }}"),
			pos:   "templates/note/items.md.tmpl:1:10",
			hints: []string{"did you mean upper?"}},
		{name: "now", change: items("{{ now }}"),
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{`function "now" not defined: it is left out on purpose, as it reads the machine's clock`},
			hints: []string{"use the input's now field: templates get time from the input, so the same input gives the same bytes",
				`schemas/note.schema.json has no now field yet: add one`, "{field: /now, value: now}"}},
		{name: "env", change: items(`{{ env "HOME" }}`),
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{"reads the environment"},
			hints:  []string{"pass the value in the input"}},
		{name: "randAlpha", change: items("x {{ randAlpha 8 }}"),
			pos:    "templates/note/items.md.tmpl:1:6",
			reason: []string{"draws random values"},
			hints:  []string{"derive the value from the input", "ids: in prompt.yaml"}},
		{name: "uuidv4", change: items("{{ uuidv4 }}"),
			pos:   "templates/note/items.md.tmpl:1:4",
			hints: []string{"derive the id from the input: an id of the manifest"}},
		{name: "a misspelt function left out", change: items("{{ uuid }}"),
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{`function "uuid" not defined`},
			hints:  []string{"did you mean uniq?", "or, if you meant uuidv4: it is left out on purpose", "derive the id from the input"}},
		{name: "in a condition of the manifest", change: func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = []byte(strings.Replace(string(f["templates/note/prompt.yaml"].Data), "{{ not .admin }}", "{{ not (nw) }}", 1))
		}, pos: "templates/note/prompt.yaml checks.forbid[0].when:9",
			hints: []string{"did you mean ne?", "or, if you meant now: it is left out on purpose", "schemas/note.schema.json has no now field yet"}},
		{name: "date without a time", change: items(`{{ date "2006-01-02" }}`), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{"date takes 2 arguments: date LAYOUT TIME; this call gives it 1"},
			hints:  []string{"sprig's date without a time formats the machine's clock", `give it a time from the input, such as its now field: {{ date "2006-01-02" .now }}`}},
		{name: "a function called wrong", change: items(`{{ trunc "x" }}`), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{"trunc takes 2 arguments: trunc N TEXT; this call gives it 1"}},
	}
	checkInNote(t, cases)
}

// TestDanglingAction: an action left without its }} is reported where its
// {{ opened, whatever text/template makes of what follows it.
func TestDanglingAction(t *testing.T) {
	t.Parallel()
	cases := []mistake{
		{name: "at the end of the file", change: items("line one\n{{ if .admin }}x\n{{ end \n"),
			pos:    "templates/note/items.md.tmpl:3:1",
			reason: []string{`the action "{{ end" opened here has no closing }}: it runs on to the end of the file`},
			hints:  []string{"close it with }} where it ends: {{ end }}"}},
		{name: "text after it", change: items("{{ if .admin }}x\n  {{ end \nmore text\n"),
			pos:    "templates/note/items.md.tmpl:2:3",
			reason: []string{`"{{ end" opened here has no closing }}`}},
		{name: "into the next action", change: items("a {{ .title \nb {{ .admin }}\n"),
			pos:    "templates/note/items.md.tmpl:1:3",
			reason: []string{`the action "{{ .title" opened here has no closing }}: it runs on into the next {{ at line 2`},
			hints:  []string{"{{ .title }}"}},
		{name: "with a trim marker", change: items("x\n{{- .title -\n"),
			pos:   "templates/note/items.md.tmpl:2:1",
			hints: []string{"{{- .title -}}"}},
		{name: "an error before it comes first", change: items("{{ if }}\n\n{{ end \n"),
			pos:    "templates/note/items.md.tmpl:1",
			reason: []string{"missing value for if"}},
		{name: "a string holding braces is no dangling action", change: items("{{ \"{{\" }}\n{{ if .admin }}\n"),
			pos:    "templates/note/items.md.tmpl:2:1",
			reason: []string{"{{if}} opened at templates/note/items.md.tmpl:2:1 is never closed"}},
	}
	checkInNote(t, cases)
}

// TestHeadingMistakes: a failed heading check is placed at the line of
// prompt.yaml that requires the heading, and names the heading the author
// most likely meant, with the template line that wrote it, or the code
// fence an earlier section left open, with its line of the prompt and of
// its template.
func TestHeadingMistakes(t *testing.T) {
	t.Parallel()
	title := func(src string) func(fstest.MapFS) {
		return func(f fstest.MapFS) { f["templates/note/title.md.tmpl"].Data = []byte(src) }
	}
	cases := []mistake{
		{name: "another case", change: title("# note\n\n{{ .title }}\n"), input: "title: T\n",
			pos:    "templates/note/prompt.yaml:13",
			reason: []string{`headings: "# Note" is missing; the prompt has "# note" (another case) at line 1 of the prompt, written by section title`},
			hints:  []string{`if that is the heading, write it as "# Note" at templates/note/title.md.tmpl:1:1`}},
		{name: "another level", change: title("{{ .title }}\n\n## Note\n"), input: "title: T\n",
			pos:    "templates/note/prompt.yaml:13",
			reason: []string{`the prompt has "## Note" (at level 2, not 1) at line 3 of the prompt`},
			hints:  []string{`write it as "# Note" at templates/note/title.md.tmpl:3:1`}},
		{name: "a near spelling", change: title("# Nots\n"), input: "title: T\n",
			pos:    "templates/note/prompt.yaml:13",
			reason: []string{`the prompt has "# Nots" (a near spelling)`}},
		{name: "a fence left open in an earlier section", change: func(f fstest.MapFS) {
			f["templates/note/title.md.tmpl"].Data = []byte("Intro\n\n```text\n{{ .title }}\n")
			f["templates/note/items.md.tmpl"].Data = []byte("# Note\n{{ range .items }}{{ .id }}\n{{ end }}")
		}, input: "title: T\n",
			pos: "templates/note/prompt.yaml:13",
			reason: []string{`"# Note" is missing: at line 7 of the prompt it stands inside a code block, which the fence "` + "```text" +
				`" at line 3 (section title) opened and no fence closes before it, so it is no heading`},
			hints: []string{"close that code block before the heading with a line of ```", "the fence comes from templates/note/title.md.tmpl:3:1"}},
	}
	checkInNote(t, cases)
}

// The mistakes an author makes in a shipped variant (a misspelt field, a
// property the schema lacks, the input read from the dot inside with, an
// unknown function, now, a dangling end, a heading in another case or
// swallowed by a fence) are each held above on the test library of
// noteFS, so that no test reads the shipped library's words.

// TestTypeMistakes: an error of types at render time is said in the
// schema's words, as lint says it before any input: the types compared,
// what a range went over, the length of a list an index went past and how
// to guard it; never Go's int64 or interface {}.
func TestTypeMistakes(t *testing.T) {
	t.Parallel()
	cases := []mistake{
		{name: "a comparison of a string with an integer", change: items(`{{ if eq .title 3 }}x{{ end }}`), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:7",
			reason: []string{`eq .title 3 compares a string with an integer, which never compare`},
			hints:  []string{`a number without quotes (3) for an integer or a number, a text in quotes ("3") for a string`}},
		{name: "range over text", change: items(`{{ range .title }}x{{ end }}`), input: "title: checkout-api\n",
			pos:    "templates/note/items.md.tmpl:1:10",
			reason: []string{`range .title: .title is a string (here "checkout-api"), and range goes over the items of a list or the values of an object`},
			hints:  []string{`print it with {{ .title }}, or make it a list in schemas/note.schema.json`}},
		{name: "an index past the end", change: items("\n{{ index .items 5 }}"), input: withItems,
			pos:    "templates/note/items.md.tmpl:2:4",
			reason: []string{`index .items 5: index 5 is past the end of .items, which has 1 item(s) in this input (indexes 0 to 0)`},
			hints:  []string{`guard it: {{ if gt (len .items) 5 }}{{ index .items 5 }}{{ end }}`}},
		{name: "an index past the end inside range", change: items("{{ range .items }}{{ index $.refs 2 }}{{ end }}"), input: withItems,
			pos:    "templates/note/items.md.tmpl:1:22",
			reason: []string{`index $.refs 2: index 2 is past the end of $.refs, which has 0 item(s) in this input`},
			hints:  []string{`{{ if gt (len $.refs) 2 }}`}},
		{name: "an index of a boolean", change: items("{{ index .admin 0 }}"), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:4",
			reason: []string{`index .admin 0: .admin is a boolean, which has no items to index`}},
		{name: "a template that is not there", change: items(`{{ template "_row.tmpl" . }}`), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:13",
			reason: []string{`no template "_row.tmpl"; the templates are: `, `name one of them, or create templates/note/_row.tmpl`}},
		{name: "a field read on a text", change: items(`{{ .title.first }}`), input: "title: T\n",
			pos:    "templates/note/items.md.tmpl:1:10",
			reason: []string{`.title is a string, which has no fields`, `write it without .first to read it`}},
	}
	checkInNote(t, cases)
}

// TestPartialFieldMistake: a field misspelt in a partial fails a render
// with the name meant, as lint finds it from what the caller passes; not
// with advice to guard it.
func TestPartialFieldMistake(t *testing.T) {
	m := mistake{name: "misspelt in a partial", change: func(f fstest.MapFS) {
		items("{{ range .items }}{{ template \"_item.tmpl\" . }}{{ end }}")(f)
		f["templates/note/_item.tmpl"] = &fstest.MapFile{Data: []byte("- {{ .dnoe }}\n")}
	}, input: withItems,
		pos:    "templates/note/_item.tmpl:1:6",
		reason: []string{`.items[].dnoe: the schema defines no field "dnoe" here; did you mean "done"? (in a partial: the dot here is .items[], as templates/note/items.md.tmpl:1:31 passes it)`},
		hints:  []string{`if "dnoe" is a new field, add it to the schema (schemas/note.schema.json)`}}
	m.check(t, noteFS(), "note")
}
