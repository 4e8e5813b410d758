package lint_test

import (
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/lint"
)

// typedSchema has a field of each type lint checks expressions against.
const typedSchema = `{
  "type": "object", "additionalProperties": false,
  "required": ["count", "name", "mode", "items", "tags", "ok", "price", "who", "maybe", "sev", "free"],
  "$defs": {"mode": {"type": "string", "enum": ["fast", "slow"]}},
  "properties": {
    "count": {"type": "integer"},
    "price": {"type": "number"},
    "name": {"type": "string"},
    "maybe": {"type": ["string", "null"]},
    "ok": {"type": "boolean"},
    "mode": {"$ref": "#/$defs/mode"},
    "items": {"type": "array", "maxItems": 3, "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
    "tags": {"type": "array", "items": {"type": "string"}},
    "who": {"type": "object", "required": ["first", "last"], "properties": {"first": {"type": "string"}, "last": {"type": "string"}}},
    "sev": {"type": "object", "properties": {"severity": {"type": "string"}}},
    "free": {}
  }
}`

// checkTyped lints main.md.tmpl against typedSchema, beside partials of
// its own that run on what their callers pass.
func checkTyped(t *testing.T, files map[string]string) []string {
	t.Helper()
	tmpl, sc := parseBeside(t, "typed", typedSchema, files)
	var out []string
	for _, f := range lint.Check(lint.Templates{
		Set: tmpl, Dir: "templates/typed", Root: sc.Root(), SchemaFile: "schemas/typed.schema.json",
		RootData: func(name string) bool { return name == "main.md.tmpl" },
	}) {
		out = append(out, f.String())
	}
	return out
}

// TestTypes holds what lint finds of the schema's types, in every branch
// and before any input: each finding at file:line:col, in the schema's
// words, with its fix; and what it leaves alone: a type the schema does not
// say, a value that may be of a type that works.
func TestTypes(t *testing.T) {
	const at = "templates/typed/main.md.tmpl:"
	cases := []struct {
		name, tmpl string
		want       []string // each a part of one finding, in order
	}{
		{"clean", `{{ if eq .count 3 }}{{ end }}{{ if eq .name "x" }}{{ end }}{{ if eq .mode "fast" }}{{ end }}` +
			`{{ if gt .price 2 }}{{ end }}{{ if eq .price 2.5 }}{{ end }}{{ range .items }}{{ .id }}{{ end }}{{ range .who }}{{ . }}{{ end }}` +
			`{{ range .count }}{{ end }}{{ index .items 2 }}{{ index .tags 7 }}{{ index .who "first" }}{{ add .count 1 }}` +
			`{{ printf "%d %s %v %5.2f %q" .count .name .items .price .name }}{{ if eq .maybe "x" }}{{ end }}` +
			`{{ if eq .free 3 }}{{ end }}{{ range .free }}{{ end }}{{ .free.x }}{{ len .tags }}{{ if eq (len .tags) 2 }}{{ end }}` +
			`{{ if ne .mode "slow" }}{{ end }}{{ .count | eq 3 }}{{ index .items 0 | printf "%v" }}{{ (index .items 0).id }}`, nil},
		{"a comparison of an integer with a text, in a branch no input takes",
			`{{ if false }}{{ if eq .count "3" }}x{{ end }}{{ end }}`,
			[]string{at + `1:21: error: eq .count "3": .count is an integer and "3" is a string: they never compare`, `write the number without quotes: eq .count 3`}},
		{"a text with a number", `{{ if gt .name 3 }}{{ end }}`,
			[]string{at + `1:7: error: gt .name 3: .name is a string and 3 is an integer`, `write the text in quotes: gt .name "3"`}},
		{"a text that may be null with a number", `{{ if eq .maybe 3 }}{{ end }}`,
			[]string{at + `1:7: error: eq .maybe 3: .maybe is a string or null and 3 is an integer`}},
		{"a boolean with a text, piped", `{{ .ok | eq "yes" }}`,
			[]string{at + `1:10: error: eq "yes": .ok is a boolean and "yes" is a string`}},
		{"a value not in the enum", `{{ if eq .mode "fsat" }}{{ end }}`,
			[]string{at + `1:7: error: eq .mode "fsat": "fsat" is not a value of .mode, which is one of "fast", "slow": the test never holds; did you mean "fast"? write eq .mode "fast" (or add "fsat" to the enum in schemas/typed.schema.json)`}},
		{"range over a text", `{{ range .name }}{{ end }}`,
			[]string{at + `1:10: error: range .name: .name is a string, and range goes over the items of a list`, `print it with {{ .name }}`}},
		{"range over a text through with", `{{ with .who }}{{ range .first }}{{ end }}{{ end }}`,
			[]string{at + `1:25: error: range .who.first: .who.first is a string`, `print it with {{ .first }}`}},
		{"range over a list item's text, its fix as the range writes it", `{{ range .items }}{{ range .id }}{{ end }}{{ end }}`,
			[]string{at + `1:28: error: range .items[].id: .items[].id is`, `print it with {{ .id }},`}},
		{"index of a number", `{{ index .count 0 }}`,
			[]string{at + `1:4: error: index .count 0: .count is an integer, which has no items to index`}},
		{"index of a text", `{{ index .name 0 }}`,
			[]string{at + `1:4: error: index .name 0: .name is a string: index of a text gives one byte of it`}},
		{"a list indexed by a name", `{{ index .tags "a" }}`,
			[]string{at + `1:4: error: index .tags "a": .tags is a list of strings, indexed by position`}},
		{"an index past maxItems", `{{ index .items 3 }}`,
			[]string{at + `1:4: error: index .items 3: .items holds at most 3 item(s) (maxItems 3 in schemas/typed.schema.json), so index 3 is always out of range (indexes start at 0: the last is 2)`}},
		{"arithmetic on text", `{{ add .name 1 }}`,
			[]string{at + `1:4: error: add .name 1: .name is a string, and add works on numbers`}},
		{"len of a number", `{{ len .count }}`,
			[]string{at + `1:4: error: len .count: .count is an integer, which has no length`}},
		{"printf %d of a text", `{{ printf "%d items" .name }}`,
			[]string{at + `1:4: error: printf "%d items" .name: %d formats an integer, and .name is a string: the prompt would read %!d(...); write %s for it`}},
		{"printf %s of an integer", `{{ printf "%s" .count }}`,
			[]string{at + `1:4: error: printf "%s" .count: %s formats a string, and .count is an integer`, `write %d for it`}},
		{"printf with a verb too many", `{{ printf "%s and %s" .name }}`,
			[]string{at + `1:4: error: printf "%s and %s" .name: the format has more verbs than arguments`}},
		{"printf with an argument too many", `{{ printf "%s" .name .name }}`,
			[]string{at + `1:4: error: printf "%s" .name .name: 2 argument(s) and 1 verb(s)`}},
		{"a field read on a text", `{{ .name.first }}`,
			[]string{at + `1:9: error: .name.first: .name is a string, which has no fields`, `write it without .first to read it, or make it an object with a property "first" in the schema in schemas/typed.schema.json`}},
		{"words for a list of objects and an object", `{{ if eq .items "x" }}{{ end }}{{ if eq .who 3 }}{{ end }}`, nil},
		{"a field read on a list's item, by index", `{{ (index .items 0).idd }}`,
			[]string{at + `1:20: error: .items[].idd: the schema defines no field "idd" here; did you mean "id"?`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := checkTyped(t, map[string]string{"main.md.tmpl": c.tmpl})
			if len(got) != min(len(c.want), 1) {
				t.Fatalf("lint says\n  %s\nwant one finding with\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
			for _, part := range c.want {
				if !strings.Contains(got[0], part) {
					t.Errorf("lint says\n  %s\nwant it to hold\n  %s", got[0], part)
				}
			}
		})
	}
}

// TestTypesInAPartial: a partial's dot is what its callers pass; a field
// that value lacks is found there, with the closest name, as in a section,
// naming the caller. A test for the field, by which a partial serves
// values of several kinds, is not.
func TestTypesInAPartial(t *testing.T) {
	got := checkTyped(t, map[string]string{
		"main.md.tmpl": `{{ template "_sev.tmpl" .sev }}{{ include "_who.tmpl" .who }}{{ include "_either.tmpl" .sev }}{{ include "_either.tmpl" .who }}`,
		"_sev.tmpl":    "- {{ .sevrity }}\n",
		"_who.tmpl":    `{{ range .first }}{{ end }}`,
		"_either.tmpl": `{{ if hasKey . "first" }}{{ .first }}{{ end }}{{ if hasKey . "severity" }}{{ .severity }}{{ end }}`,
	})
	want := []string{
		`templates/typed/_sev.tmpl:1:6: error: .sev.sevrity: the schema defines no field "sevrity" here; did you mean "severity"? (in a partial: the dot here is .sev, as templates/typed/main.md.tmpl:1:13 passes it)`,
		`templates/typed/_who.tmpl:1:10: error: range .who.first: .who.first is a string`,
	}
	if len(got) != len(want) {
		t.Fatalf("lint says\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("lint says\n  %s\nwant\n  %s", got[i], want[i])
		}
	}
}
