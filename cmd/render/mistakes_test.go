package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// tenMistakes is a library of its own in which an author makes the ten
// classic mistakes, each once: orders holds those of the templates, the
// manifest's checks and an example; typo misspells a manifest key;
// badschema names a type JSON Schema has not; notes renders, and has no
// golden file.
func tenMistakes() map[string]string {
	return map[string]string{
		"schemas/orders.schema.json": `{
  "type": "object", "additionalProperties": false,
  "required": ["count", "mode", "name", "items", "sev"],
  "properties": {
    "count": {"type": "integer", "description": "How many."},
    "mode": {"type": "string", "enum": ["fast", "slow"], "description": "The speed."},
    "name": {"type": "string", "description": "The order's name."},
    "items": {"type": "array", "maxItems": 3, "description": "The lines.",
      "items": {"type": "object", "properties": {"sku": {"type": "string", "description": "The product."}}}},
    "sev": {"type": "object", "required": ["severity"], "description": "The urgency.",
      "properties": {"severity": {"type": "string", "description": "How urgent."}}}
  }
}
`,
		"templates/orders/prompt.yaml": "description: Orders\nsections: [main]\nchecks:\n  headings:\n    - \"# Orders\"\n    - \"## Rules\"\n",
		"templates/orders/main.md.tmpl": "# Orders\n" +
			"{{ if eq .count \"3\" }}three{{ end }}\n" + // 1: a comparison of an integer with a text
			"{{ template \"_sumary.tmpl\" .sev }}\n" + // 2: a partial that is not there
			"{{ if eq .mode \"fsat\" }}fast{{ end }}\n" + // 3: a value not in the enum
			"{{ range .name }}x{{ end }}\n" + // 4: range over text
			"{{ index .items 5 }}\n" + // 5: an index past maxItems
			"{{ template \"_summary.tmpl\" .sev }}\n",
		"templates/orders/_summary.tmpl": "- {{ .sevrity }}\n", // a misspelt field in a partial
		// 8: a key indented by one space.
		"templates/orders/examples/a.yaml": "count: 3\nmode: fast\nname: n\nitems:\n  - sku: x\n sev: {severity: high}\n",

		// 6: a manifest key misspelt.
		"schemas/typo.schema.json":      `{"type": "object", "properties": {"title": {"type": "string", "description": "T."}}}`,
		"templates/typo/prompt.yaml":    "description: Typo\nsectons: [main]\n",
		"templates/typo/main.md.tmpl":   "# {{ .title }}\n",
		"schemas/badschema.schema.json": "{\"type\": \"object\",\n  \"properties\": {\"title\": {\"type\": \"strng\", \"description\": \"T.\"}}}\n",
		// 9: a type that is not one.
		"templates/badschema/prompt.yaml":  "description: Bad schema\nsections: [main]\n",
		"templates/badschema/main.md.tmpl": "# {{ .title }}\n",

		// 10: an example without its golden file.
		"schemas/notes.schema.json":       `{"type": "object", "required": ["title"], "properties": {"title": {"type": "string", "description": "T."}}}`,
		"templates/notes/prompt.yaml":     "description: Notes\nsections: [main]\n",
		"templates/notes/main.md.tmpl":    "# {{ .title }}\n",
		"templates/notes/examples/a.yaml": "title: A\n",
	}
}

// TestTenMistakes: each of the ten classic mistakes of an author is
// reported by render lint (the golden file by render test too) at its
// file:line(:col), with what to do, before any example runs: none of the
// findings is an example's.
func TestTenMistakes(t *testing.T) {
	t.Parallel()
	dir := fixture.WriteFiles(t, tenMistakes())
	r := runCLI(t, "", "lint", "--templates", dir)
	got := strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), "")
	t.Logf("render lint:\n%s", got)
	mistakes := []struct{ name, at, says, fix string }{
		{"a comparison of different types", "templates/orders/main.md.tmpl:2:7: error: ",
			`eq .count "3": .count is an integer and "3" is a string: they never compare`, "write the number without quotes: eq .count 3"},
		{"a partial that is not there", "templates/orders/main.md.tmpl:3:13: error: ",
			`no template "_sumary.tmpl"`, `did you mean "_summary.tmpl"?`},
		{"a value not in the enum", "templates/orders/main.md.tmpl:4:7: error: ",
			`"fsat" is not a value of .mode, which is one of "fast", "slow": the test never holds`, `did you mean "fast"? write eq .mode "fast"`},
		{"range over text", "templates/orders/main.md.tmpl:5:10: error: ",
			"range .name: .name is a string, and range goes over the items of a list or the values of an object", "print it with {{ .name }}"},
		{"an index out of range", "templates/orders/main.md.tmpl:6:4: error: ",
			"index .items 5: .items holds at most 3 item(s) (maxItems 3 in schemas/orders.schema.json), so index 5 is always out of range", "index a smaller position, or raise maxItems"},
		{"a manifest key misspelt", "templates/typo/prompt.yaml:2: error: ",
			`unknown field "sectons"`, `did you mean "sections"?`},
		{"a heading no template writes", "templates/orders/prompt.yaml:6: error: ",
			`checks.headings requires "## Rules", and no template writes it`, `write the line ## Rules in the template that writes "# Orders"`},
		{"a YAML example indented wrong", "templates/orders/examples/a.yaml:6: error: ",
			"example a: invalid YAML: did not find expected key", "line 6 starts at column 2, where no line above it starts"},
		{"a type that is not one", "schemas/badschema.schema.json:2:28: error: ",
			`"strng" is not a type of JSON Schema`, `did you mean "string"? write "type": "string"`},
		{"a golden file missing", "testdata/golden/notes/a.md: warning: ",
			"no golden file", "render test --update writes it"},
		{"a misspelt field in a partial", "templates/orders/_summary.tmpl:1:6: error: ",
			`.sev.sevrity: the schema defines no field "sevrity" here; did you mean "severity"?`, "the dot here is .sev, as templates/orders/main.md.tmpl:7:13 passes it"},
	}
	lines := strings.Split(got, "\n")
	for _, m := range mistakes {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, m.at) && strings.Contains(l, m.says) {
				found = true
				if !strings.Contains(l, m.fix) {
					t.Errorf("%s: the finding does not say what to do (%q):\n%s", m.name, m.fix, l)
				}
			}
		}
		if !found {
			t.Errorf("%s: render lint does not report it at %s saying %q", m.name, m.at, m.says)
		}
	}
	if r.code != 1 || strings.Contains(got, ": error: example a: 1 check(s) failed") || strings.Contains(got, "int64") {
		t.Errorf("render lint: exit %d, want 1, and no finding an example reports once it runs", r.code)
	}
	if strings.Contains(got, "JSON input") {
		t.Error("the YAML example's error speaks of JSON")
	}

	// render test fails on the golden file missing, naming it and what to do.
	r = runCLI(t, "", "test", "notes", "--templates", dir)
	out := strings.ReplaceAll(r.stdout+r.stderr, dir+string(filepath.Separator), "")
	if r.code == 0 || !strings.Contains(out, "testdata/golden/notes/a.md: no golden file (render test --update writes it)") {
		t.Errorf("render test notes: exit %d\n%s", r.code, out)
	}
}
