package engine

import (
	"strings"
	"testing"
	"testing/fstest"
)

func lintNote(t *testing.T, change func(fstest.MapFS)) []string {
	t.Helper()
	lib := mustLoadNote(t, change)
	v, _ := lib.Variant("note")
	var out []string
	for _, f := range v.Lint() {
		out = append(out, f.String())
	}
	return out
}

// TestLintTemplates: lint reads every field reference of every template, in
// every branch, against the schema.
func TestLintTemplates(t *testing.T) {
	t.Parallel()
	if got := strings.Join(lintNote(t, nil), "\n"); strings.Contains(got, "items.md.tmpl") || strings.Contains(got, ": error:") {
		t.Fatalf("the note variant's templates are clean, lint says:\n%s", got)
	}
	cases := []struct{ name, tmpl, want string }{
		{"a misspelt field in a branch no example runs",
			"{{ if .admin }}\n  {{ .titel }}{{ end }}",
			`templates/note/items.md.tmpl:2:6: error: .titel: the schema defines no field "titel" here; did you mean "title"?`},
		{"inside range, the dot is an item",
			"{{ range .items }}{{ .idd }}{{ end }}",
			`items.md.tmpl:1:22: error: .items[].idd: the schema defines no field "idd" here; did you mean "id"?`},
		{"a variable holds a place in the schema",
			"{{ $i := index .items 0 }}{{ range $x := .items }}{{ $x.don }}{{ end }}",
			`error: .items[].don: the schema defines no field "don" here; did you mean "done"?`},
		{"$ is the input inside with",
			"{{ with .items }}{{ $.titl }}{{ end }}",
			`error: .titl: the schema defines no field "titl" here; did you mean "title"?`},
		{"get and hasKey name fields too",
			`{{ if hasKey . "stlye" }}{{ get . "bdy" }}{{ end }}`,
			`did you mean "style"?`},
		{"an optional field read without a guard",
			"{{ .style }}",
			`templates/note/items.md.tmpl:1:4: warning: .style is optional (not required, no default): reading it fails when an input leaves it out; guard it with {{ if hasKey . "style" }} or read it with get . "style"`},
		{"an include of a template that is not there",
			`{{ include "styles/nope.md.tmpl" . }}`,
			`error: include "styles/nope.md.tmpl": no such template`},
		{"ids are fields", "{{ .note_id }}{{ .note_idd }}", `did you mean "note_id"?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(lintNote(t, func(f fstest.MapFS) { f["templates/note/items.md.tmpl"].Data = []byte(c.tmpl) }), "\n")
			if !strings.Contains(got, c.want) {
				t.Errorf("lint says:\n%s\nwant %q", got, c.want)
			}
		})
	}
	guarded := "{{ if hasKey . \"style\" }}{{ .style }}{{ end }}{{ with get . \"style\" }}{{ . }}{{ end }}" +
		"{{ $has := hasKey . \"style\" }}{{ if $has }}{{ .style }}{{ end }}{{ $no := not (hasKey . \"style\") }}{{ if $no }}x{{ else }}{{ .style }}{{ end }}"
	if got := strings.Join(lintNote(t, func(f fstest.MapFS) { f["templates/note/items.md.tmpl"].Data = []byte(guarded) }), "\n"); strings.Contains(got, "items.md.tmpl") {
		t.Errorf("guarded reads: %v", got)
	}
}

// TestLintSchema: a default or example the schema itself refuses is an
// error; a property without a description is a warning.
func TestLintSchema(t *testing.T) {
	t.Parallel()
	got := strings.Join(lintNote(t, func(f fstest.MapFS) {
		f["schemas/note.schema.json"].Data = []byte(strings.Replace(string(f["schemas/note.schema.json"].Data),
			`"style": {"type": "string", "description": "A template under styles/."}`,
			`"style": {"type": "string", "default": 5, "examples": ["plain", 7]}`, 1))
	}), "\n")
	for _, want := range []string{
		"schemas/note.schema.json:11:33: error: the default is not valid here: expected string, but got number",
		"error: an example is not valid here: expected string, but got number",
		"warning: property style has no description",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lint says:\n%s\nwant %q", got, want)
		}
	}
}

// TestLintHeadings: a heading checks.headings requires that no template
// can write is an error at its line of the manifest, before any example
// runs; one a template writes, or may write with an action, is not.
func TestLintHeadings(t *testing.T) {
	t.Parallel()
	manifest := func(headings string) func(fstest.MapFS) {
		return func(f fstest.MapFS) {
			m := string(f["templates/note/prompt.yaml"].Data)
			f["templates/note/prompt.yaml"].Data = []byte(strings.Replace(m, `headings: ["# Note"]`, "headings:\n    - \"# Note\"\n    - "+headings, 1))
		}
	}
	got := strings.Join(lintNote(t, manifest(`"## Rules"`)), "\n")
	if want := `templates/note/prompt.yaml:15: error: checks.headings requires "## Rules", and no template writes it: every prompt fails the check; write the line ## Rules in the template that writes "# Note", after it, or the next section's, or remove it from checks.headings`; !strings.Contains(got, want) {
		t.Errorf("lint says:\n%s\nwant %q", got, want)
	}
	written := func(f fstest.MapFS) {
		manifest(`"## Rules"`)(f)
		f["templates/note/items.md.tmpl"].Data = []byte("## Rules\n")
	}
	dynamic := func(f fstest.MapFS) {
		manifest(`"## Rules"`)(f)
		f["templates/note/items.md.tmpl"].Data = []byte("## {{ .title }}\n")
	}
	for name, change := range map[string]func(fstest.MapFS){"written": written, "written by an action": dynamic} {
		if got := strings.Join(lintNote(t, change), "\n"); strings.Contains(got, "checks.headings") {
			t.Errorf("%s: lint says:\n%s", name, got)
		}
	}
}
