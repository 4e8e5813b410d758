package manifest_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/problem"
)

const file = "templates/note/prompt.yaml"

func str(s string) *string { return &s }

// TestParse holds that every field of a valid prompt.yaml lands where its
// Go field is, and that budget units without a name are named after their
// section or the last token of their field.
func TestParse(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want manifest.Manifest
	}{
		{"sections only", "sections: [a]\n", manifest.Manifest{Sections: []string{"a"}}},
		{"everything", `description: A note
schema: notes
sections: [title, items, tail]
join: "\n--\n"
ids:
  note_id: {of: [/title, /items], prefix: "n-", length: 8}
verbatim:
  - {name: body, field: /body, start: "<<<", end: ">>>", max_bytes: 20, max_bytes_from: /limit}
rules:
  unique: [/items/*/id]
  references: [{field: /refs/*, in: /items/*/id}]
  template_choice: [{field: /style, templates: "styles/*.md.tmpl"}]
  section_refs: [{field: /see/*, verbatim: body}]
checks:
  headings: ["# Note"]
  forbid:
    - {text: SECRET, when: "{{ not .admin }}", outside_verbatim: true}
  require: [{text: "# Note"}]
  max_bytes: 400
log: {who: /user}
gather:
  - {field: /os, value: os}
  - {field: /status, command: [git, status], timeout: 5s, optional: true}
budget:
  - {section: tail, priority: 2}
  - {name: old, list: /items, drop: oldest, by: at, keep: 1, where: {done: true}}
  - {text: /notes/body, marker: "..."}
budget_examples:
  - {example: basic, max_tokens: 100}
seed:
  document: 002_x.txt
  builder: buildNote in note.ts
  pinned: [basic, empty]
`, manifest.Manifest{
			Description: "A note",
			Schema:      "notes",
			Sections:    []string{"title", "items", "tail"},
			Join:        str("\n--\n"),
			IDs:         map[string]manifest.IDSpec{"note_id": {Of: []string{"/title", "/items"}, Prefix: "n-", Length: 8}},
			Verbatim: []manifest.Verbatim{{Name: "body", Field: "/body", Start: "<<<", End: ">>>",
				MaxBytes: 20, MaxBytesFrom: "/limit"}},
			Rules: manifest.Rules{
				Unique:         []string{"/items/*/id"},
				References:     []manifest.Reference{{Field: "/refs/*", In: "/items/*/id"}},
				TemplateChoice: []manifest.TemplateChoice{{Field: "/style", Templates: "styles/*.md.tmpl"}},
				SectionRefs:    []manifest.SectionRef{{Field: "/see/*", Verbatim: "body"}},
			},
			Checks: manifest.Checks{
				Headings: []string{"# Note"},
				Forbid:   []manifest.TextRule{{Text: "SECRET", When: "{{ not .admin }}", OutsideVerbatim: true}},
				Require:  []manifest.TextRule{{Text: "# Note"}},
				MaxBytes: 400,
			},
			Log: map[string]string{"who": "/user"},
			Gather: []manifest.Probe{
				{Field: "/os", Value: "os"},
				{Field: "/status", Command: []string{"git", "status"}, Timeout: "5s", Optional: true},
			},
			Budget: []manifest.Unit{
				{Name: "tail", Priority: 2, Section: "tail"},
				{Name: "old", List: "/items", Drop: "oldest", By: "at", Keep: 1, Where: map[string]any{"done": true}},
				{Name: "body", Text: "/notes/body", Marker: str("...")},
			},
			BudgetExamples: []manifest.BudgetExample{{Example: "basic", MaxTokens: 100}},
			Seed:           &manifest.Seed{Document: "002_x.txt", Builder: "buildNote in note.ts", Pinned: []string{"basic", "empty"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := manifest.Parse(file, []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*m, c.want) {
				t.Errorf("Parse gave\n%+v\nwant\n%+v", *m, c.want)
			}
		})
	}
}

// TestParseErrors holds that each way a prompt.yaml can be wrong is a
// template error at the file, and at the line for what YAML decoding finds,
// worded for an author: an unknown key with the closest known one and the
// keys of its level, a value of the wrong type in words rather than Go
// types, a YAML syntax error at the line that breaks it, and each rule the
// manifest's own checks hold.
func TestParseErrors(t *testing.T) {
	const readme = "templates/README.md lists the manifest's fields"
	const top = "the fields here are: description, schema, sections, join, ids, verbatim, rules, checks, log, gather, budget, budget_examples, cache, seed"
	cases := []struct {
		name     string
		src      string
		position string
		reason   string
		hints    []string
		also     []string // position: reason of each further problem
	}{
		{"unknown top-level key", "sections: [a]\nsectoins: [b]\n", file + ":2", `unknown field "sectoins"`,
			[]string{`did you mean "sections"?`, top, readme}, nil},
		{"unknown key of a check", "sections: [a]\nchecks:\n  headings: [\"# A\"]\n  forbidd: []\n", file + ":4", `unknown field "forbidd"`,
			[]string{`did you mean "forbid"?`, "the fields here are: headings, forbid, require, max_bytes", readme}, nil},
		{"unknown key of a unit, too far from any", "sections: [a]\nbudget: [{section: a, zzzzzzzzzzzz: 1}]\n", file + ":2", `unknown field "zzzzzzzzzzzz"`,
			[]string{"the fields here are: name, priority, section, list, text, drop, by, where, keep, marker", readme}, nil},
		{"two unknown keys", "sections: [a]\nsectoins: [b]\ndescriptoin: x\n", file + ":2", `unknown field "sectoins"`,
			[]string{`did you mean "sections"?`, top, readme}, []string{file + `:3: unknown field "descriptoin"`}},
		{"seed without a document", "sections: [a]\nseed: {pinned: [basic]}\n", file, "seed: document is empty", []string{"name the seed document the variant reproduces, e.g. document: 002_a6e0a108699b94e3.txt, or remove seed:"}, nil},
		{"example pinned twice", "sections: [a]\nseed: {document: s.txt, pinned: [basic, basic]}\n", file, `seed.pinned[1]: example "basic" is pinned twice`, []string{"remove one of the two"}, nil},
		{"empty pin", "sections: [a]\nseed: {document: s.txt, pinned: [\"\"]}\n", file, "seed.pinned[0] is empty", []string{"name an example, the file name under examples/ without its extension"}, nil},
		{"text for a list", "sections: a\n", file + ":1", `expected a list, got the text "a"`, []string{readme}, nil},
		{"text for a number", "sections: [a]\nchecks:\n  max_bytes: lots\n", file + ":3", `expected a whole number, got the text "lots"`, []string{readme}, nil},
		{"boolean for a number", "sections: [a]\nchecks: {max_bytes: true}\n", file + ":2", `expected a whole number, got the boolean "true"`, []string{readme}, nil},
		{"text for a boolean", "sections: [a]\nchecks: {forbid: [{text: x, outside_verbatim: maybe}]}\n", file + ":2", `expected true or false, got the text "maybe"`, []string{readme}, nil},
		{"two type errors", "sections: a\nchecks: {max_bytes: x}\n", file + ":1", `expected a list, got the text "a"`,
			[]string{readme}, []string{file + `:2: expected a whole number, got the text "x"`}},
		{"a key twice", "sections: [a]\nsections: [b]\n", file + ":2", `mapping key "sections" already defined at line 1`, []string{readme}, nil},
		{"unclosed flow list", "sections: [a\n", file + ":1", "invalid YAML: did not find expected ',' or ']'",
			[]string{"check the indentation and quoting at that line"}, nil},
		{"bad indentation further down", "description: x\nsections: [a]\nverbatim:\n  - name: b\n    field: /b\n   start: S\n", file + ":6",
			"invalid YAML: did not find expected '-' indicator", []string{"check the indentation and quoting at that line"}, nil},
		{"no sections", "description: x\n", file, "the manifest lists no sections",
			[]string{"add sections: [name, ...], one per <name>.md.tmpl file, in output order"}, nil},
		{"verbatim with one marker twice", "sections: [a]\nverbatim: [{name: b, field: /b, start: S, end: S}]\n", file,
			`verbatim "b" needs a field and two different markers, start and end`, nil, nil},
		{"verbatim without a field", "sections: [a]\nverbatim: [{name: b, start: S, end: E}]\n", file,
			`verbatim "b" needs a field and two different markers, start and end`, nil, nil},
		{"verbatim marker of two lines", "sections: [a]\nverbatim: [{name: b, field: /b, start: \"S\\nT\", end: E}]\n", file,
			`verbatim "b": a marker is one line; remove the line break`, nil, nil},
		{"section_refs to an undeclared verbatim", "sections: [a]\nrules: {section_refs: [{field: /x, verbatim: nope}]}\n", file,
			`section_refs names verbatim "nope", which the manifest does not declare`, nil, nil},
		{"a pointer without /", "sections: [a]\nrules: {unique: [a/b]}\n", file, `"a/b" is not a JSON pointer`,
			[]string{"write it as /field/sub, starting with /"}, nil},
		{"a log pointer without /", "sections: [a]\nlog: {who: user}\n", file, `"user" is not a JSON pointer`,
			[]string{"write it as /field/sub, starting with /"}, nil},
		{"id of nothing", "sections: [a]\nids: {x: {length: 3}}\n", file, `id "x": list the input fields it is a hash of under of:`, nil, nil},
		{"id too long", "sections: [a]\nids: {x: {of: [/a], length: 65}}\n", file, `id "x": length must be between 1 and 64 hex digits`, nil, nil},
		{"probe without a source", "sections: [a]\ngather: [{field: /x}]\n", file, "gather[0] (/x): no source",
			[]string{"give one of command: [name, args...], env: NAME, file: PATH or value: os|cwd|date|now"}, nil},
		{"probe with two sources", "sections: [a]\ngather: [{field: /x, env: A, file: b}]\n", file, "gather[0] (/x): 2 sources (env, file)",
			[]string{"a probe fills one field from exactly one source; split it"}, nil},
		{"probe of a pattern", "sections: [a]\ngather: [{field: /x/*, env: A}]\n", file, "gather[0] (/x/*): field must be the JSON pointer of one input field",
			[]string{"write it as /field or /object/field"}, nil},
		{"probes that overlap", "sections: [a]\ngather: [{field: /x, command: [ls]}, {field: /x/y, env: HOME}]\n", file,
			"gather[1] (/x/y): overlaps gather[0] (/x)", []string{"each probe fills a field of its own"}, nil},
		{"probe value unknown", "sections: [a]\ngather: [{field: /x, value: time}]\n", file, `gather[0] (/x): value "time" is not one of os, cwd, date, now`, nil, nil},
		{"probe file outside", "sections: [a]\ngather: [{field: /x, file: ../etc}]\n", file,
			`gather[0] (/x): file "../etc" is not a relative path inside the gather directory`, nil, nil},
		{"probe timeout without a command", "sections: [a]\ngather: [{field: /x, value: os, timeout: 1s}]\n", file,
			"gather[0] (/x): timeout applies to command probes only", nil, nil},
		{"probe timeout of zero", "sections: [a]\ngather: [{field: /x, command: [ls], timeout: 0s}]\n", file,
			`gather[0] (/x): timeout "0s" is not a positive Go duration`, []string{`write it as "500ms", "2s" or "1m"`}, nil},
		{"probe command empty", "sections: [a]\ngather: [{field: /x, command: []}]\n", file, "gather[0] (/x): command is empty",
			[]string{"write it as a list: command: [git, status, --short]"}, nil},
		{"probe parse unknown", "sections: [a]\ngather: [{field: /x, file: a, parse: yaml}]\n", file, `gather[0] (/x): parse "yaml" is not supported`,
			[]string{"the only parser is json; leave parse out to take the text as it is"}, nil},
		{"probe keep without parse", "sections: [a]\ngather: [{field: /x, env: A, keep: [a]}]\n", file,
			"gather[0] (/x): keep applies to probes with parse: json only", nil, nil},
		{"unit of two kinds", "sections: [a]\nbudget: [{section: a, list: /x}]\n", file, "budget[0]: a unit is exactly one of section:, list: or text:",
			[]string{"section: NAME drops a section, list: /pointer cuts items, text: /pointer cuts characters"}, nil},
		{"unit of an unknown section", "sections: [a]\nbudget: [{section: b}]\n", file, `budget[0]: section "b" is not one of the sections`, nil, nil},
		{"units of one name", "sections: [a]\nbudget: [{list: /x}, {text: /y/x}]\n", file, `budget[1]: a second unit is named "x"`,
			[]string{"give one of them a name: of its own"}, nil},
		{"unit of a pattern", "sections: [a]\nbudget: [{list: /x/*/y}]\n", file, `budget[0]: "/x/*/y" must be the JSON pointer of one field`, nil, nil},
		{"unit holding a verbatim field", "sections: [a]\nverbatim: [{name: b, field: /p/body, start: S, end: E}]\nbudget: [{text: /p}]\n", file,
			"budget[0]: /p holds the verbatim field /p/body, which is never cut",
			[]string{"a verbatim field is embedded whole or the render is refused; budget other fields"}, nil},
		{"unit inside a verbatim field", "sections: [a]\nverbatim: [{name: b, field: /p, start: S, end: E}]\nbudget: [{text: /p/q}]\n", file,
			"budget[0]: /p/q holds the verbatim field /p, which is never cut",
			[]string{"a verbatim field is embedded whole or the render is refused; budget other fields"}, nil},
		{"drop oldest without by", "sections: [a]\nbudget: [{list: /x, drop: oldest}]\n", file, "budget[0]: drop: oldest needs by: the item field to compare", nil, nil},
		{"by without drop", "sections: [a]\nbudget: [{list: /x, by: t}]\n", file, "budget[0]: by: applies to drop: oldest, newest, lowest or highest", nil, nil},
		{"drop unknown", "sections: [a]\nbudget: [{list: /x, drop: random}]\n", file,
			`budget[0]: drop "random" is not one of oldest, newest, lowest, highest, first, last`, nil, nil},
		{"drop on a text", "sections: [a]\nbudget: [{text: /x, drop: first}]\n", file, "budget[0]: drop:, by: and where: apply to list units only", nil, nil},
		{"marker on a list", "sections: [a]\nbudget: [{list: /x, marker: \"..\"}]\n", file, "budget[0]: marker: applies to text units only", nil, nil},
		{"keep on a section", "sections: [a]\nbudget: [{section: a, keep: 1}]\n", file, "budget[0]: keep: applies to list and text units only", nil, nil},
		{"negative keep", "sections: [a]\nbudget: [{list: /x, keep: -1}]\n", file, "budget[0]: keep must not be negative", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := manifest.Parse(file, []byte(c.src))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", *m)
			}
			e := problem.As(err)
			if e.Kind != problem.KindTemplate || e.Position != c.position || e.Reason != c.reason || !slices.Equal(e.Hints, c.hints) {
				t.Errorf("got %s %q: %q hints %q\nwant template %q: %q hints %q", e.Kind, e.Position, e.Reason, e.Hints, c.position, c.reason, c.hints)
			}
			var also []string
			for _, a := range e.Also {
				also = append(also, a.Position+": "+a.Reason)
			}
			if !slices.Equal(also, c.also) {
				t.Errorf("also %q, want %q", also, c.also)
			}
		})
	}
}

// TestParseEmpty holds that a prompt.yaml with nothing in it, which is
// valid YAML, is refused for what it lacks, not as invalid YAML.
func TestParseEmpty(t *testing.T) {
	cases := []struct{ name, src string }{
		{"empty", ""},
		{"a comment", "# to do\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := manifest.Parse(file, []byte(c.src))
			if e := problem.As(err); e == nil || e.Reason != "the manifest lists no sections" || e.Position != file || len(e.Hints) == 0 {
				t.Errorf("got %v, want the manifest lists no sections at %s, with a hint", err, file)
			}
		})
	}
}

// TestParseCollectionTypeErrors holds that a list or mapping where a value
// of another type belongs is worded for authors like any other type error,
// never as a Go type.
func TestParseCollectionTypeErrors(t *testing.T) {
	cases := []struct{ name, src, reason string }{
		{"a list for a text", "sections: [a]\njoin: [x]\n", "expected text, got a list"},
		{"a mapping for a text", "sections: [a]\ndescription: {a: b}\n", "expected text, got a mapping"},
		{"a list for a mapping", "sections: [a]\nlog: [a]\n", "expected a mapping of names to values, got a list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := manifest.Parse(file, []byte(c.src))
			if e := problem.As(err); e == nil || e.Reason != c.reason {
				t.Errorf("got %v, want %q", err, c.reason)
			}
		})
	}
}

// TestParseFractionForWholeNumber holds that a fraction where a whole
// number belongs is refused, not rounded towards zero.
func TestParseFractionForWholeNumber(t *testing.T) {
	cases := []struct{ name, src, position, reason string }{
		{"max_bytes", "sections: [a]\nchecks: {max_bytes: 1.5}\n", file + ":2", `expected a whole number, got the number "1.5"`},
		{"priority", "sections: [a]\nbudget:\n  - {section: a, priority: 2.5}\n", file + ":3", `expected a whole number, got the number "2.5"`},
		{"infinite", "sections: [a]\nchecks: {max_bytes: -.inf}\n", file + ":2", `expected a whole number, got the number "-.inf"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := manifest.Parse(file, []byte(c.src))
			if err == nil {
				t.Fatalf("accepted: max_bytes %d, budget %+v", m.Checks.MaxBytes, m.Budget)
			}
			if e := problem.As(err); e.Kind != problem.KindTemplate || e.Position != c.position || e.Reason != c.reason {
				t.Errorf("got %s %q: %q\nwant template %q: %q", e.Kind, e.Position, e.Reason, c.position, c.reason)
			}
		})
	}
	// A whole number written as a float is one.
	if m, err := manifest.Parse(file, []byte("sections: [a]\nchecks: {max_bytes: 1e3}\n")); err != nil || m.Checks.MaxBytes != 1000 {
		t.Errorf("max_bytes: 1e3 gave %v, %v; want 1000", m, err)
	}
}

// TestUnitKind holds that a unit is what the one of section, list and text
// it names cuts, and that Field and MarkerText read its pointer and marker.
func TestUnitKind(t *testing.T) {
	cases := []struct {
		name   string
		unit   manifest.Unit
		kind   manifest.UnitKind
		field  string
		marker string
	}{
		{"section", manifest.Unit{Section: "tail"}, manifest.UnitSection, "", manifest.DefaultMarker},
		{"list", manifest.Unit{List: "/items"}, manifest.UnitList, "/items", manifest.DefaultMarker},
		{"text", manifest.Unit{Text: "/body"}, manifest.UnitText, "/body", manifest.DefaultMarker},
		{"text with a marker", manifest.Unit{Text: "/body", Marker: str(" [cut]")}, manifest.UnitText, "/body", " [cut]"},
		{"text with an empty marker", manifest.Unit{Text: "/body", Marker: str("")}, manifest.UnitText, "/body", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.unit.Kind(); got != c.kind {
				t.Errorf("Kind() = %q, want %q", got, c.kind)
			}
			if got := c.unit.Field(); got != c.field {
				t.Errorf("Field() = %q, want %q", got, c.field)
			}
			if got := c.unit.MarkerText(); got != c.marker {
				t.Errorf("MarkerText() = %q, want %q", got, c.marker)
			}
		})
	}
}

// TestVerbatimNamed holds that VerbatimNamed finds a declared region by its
// name, and reports a name that is not one.
func TestVerbatimNamed(t *testing.T) {
	m, err := manifest.Parse(file, []byte("sections: [a]\nverbatim:\n"+
		"  - {name: parent, field: /parent, start: '<parent>', end: '</parent>'}\n"+
		"  - {name: task, field: /task/text, start: '<task>', end: '</task>'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		field string
		ok    bool
	}{
		{"parent", "/parent", true},
		{"task", "/task/text", true},
		{"Task", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vb, ok := m.VerbatimNamed(c.name)
			if ok != c.ok || vb.Field != c.field {
				t.Errorf("VerbatimNamed(%q) = %+v, %v; want field %q, %v", c.name, vb, ok, c.field, c.ok)
			}
		})
	}
}

// TestFieldNames holds that FieldNames lists the YAML keys of a manifest
// type in declaration order, and nothing for a name that is not one.
func TestFieldNames(t *testing.T) {
	cases := []struct {
		typ  string
		want []string
	}{
		{"Manifest", []string{"description", "schema", "sections", "join", "ids", "verbatim", "rules", "checks", "log", "gather", "budget", "budget_examples", "cache", "seed"}},
		{"Checks", []string{"headings", "forbid", "require", "max_bytes"}},
		{"TextRule", []string{"text", "when", "outside_verbatim"}},
		{"Unit", []string{"name", "priority", "section", "list", "text", "drop", "by", "where", "keep", "marker"}},
		{"Probe", []string{"field", "command", "env", "file", "value", "timeout", "parse", "keep", "optional"}},
		{"Verbatim", []string{"name", "field", "start", "end", "max_bytes", "max_bytes_from"}},
		{"BudgetExample", []string{"example", "max_tokens", "tokens"}},
		{"Nope", nil},
		{"manifest", nil},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			if got := manifest.FieldNames(c.typ); !slices.Equal(got, c.want) {
				t.Errorf("FieldNames(%q) = %q, want %q", c.typ, got, c.want)
			}
		})
	}
}

// TestDefaults holds the defaults the manifest's accessors fill in: the
// join between sections, a probe's timeout, a budget example's encoding
// and golden file.
func TestDefaults(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"join unset", (&manifest.Manifest{}).JoinText(), "\n"},
		{"join empty", (&manifest.Manifest{Join: str("")}).JoinText(), ""},
		{"join set", (&manifest.Manifest{Join: str("\n---\n")}).JoinText(), "\n---\n"},
		{"timeout unset", manifest.Probe{}.Wait().String(), manifest.DefaultProbeTimeout.String()},
		{"timeout set", manifest.Probe{Timeout: "500ms"}.Wait().String(), (500 * time.Millisecond).String()},
		{"timeout negative", manifest.Probe{Timeout: "-1s"}.Wait().String(), manifest.DefaultProbeTimeout.String()},
		{"timeout unreadable", manifest.Probe{Timeout: "soon"}.Wait().String(), manifest.DefaultProbeTimeout.String()},
		{"encoding unset", manifest.BudgetExample{}.Encoding(), "o200k_base"},
		{"encoding set", manifest.BudgetExample{Tokens: "cl100k_base"}.Encoding(), "cl100k_base"},
		{"golden", manifest.BudgetExample{Example: "basic", MaxTokens: 300}.Golden(), "basic.300-tokens.md"},
		{"verbatim string", manifest.Verbatim{Name: "body", Field: "/body"}.String(), "body (/body)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}
