package lint_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/lint"
)

// TestReads: each top template's reads are noted with the place of the
// action that makes them, in the template or in the partial it passes
// the value to, and a partial two templates include counts for both.
func TestReads(t *testing.T) {
	tmpl, sc := parseNote(t, map[string]string{
		"a.md.tmpl":  "# {{ .title }}\n{{ if .admin }}x{{ end }}\n",
		"b.md.tmpl":  "text\n\n{{ range .items }}{{ template \"_row.tmpl\" . }}{{ end }}\n{{ .note_id }}",
		"c.md.tmpl":  "{{ template \"_row.tmpl\" (index .items 0) }}",
		"_row.tmpl":  "- {{ .note }}\n",
		"d.md.tmpl":  "{{ json . }}",
		"zz.md.tmpl": "{{ with .meta }}{{ .source }}{{ end }}",
		"e.md.tmpl":  "{{ with $.budget.omitted.items }}{{ . }} left out{{ end }}",
	})
	reads := lint.Reads(lint.Templates{Set: tmpl, Dir: "templates/note", Root: sc.Root(), Extra: []string{"note_id", "budget"},
		RootData: func(name string) bool { return strings.HasSuffix(name, ".md.tmpl") }})
	var got []string
	for _, r := range reads {
		s := r.Template + " " + r.Path + " " + r.Position
		if r.Whole {
			s += " whole"
		}
		got = append(got, s)
	}
	for _, want := range []string{
		"a.md.tmpl /title templates/note/a.md.tmpl:1:6 whole",
		"a.md.tmpl /admin templates/note/a.md.tmpl:2:7",
		"b.md.tmpl /items templates/note/b.md.tmpl:3:10",
		"b.md.tmpl /items/*/note templates/note/_row.tmpl:1:6 whole",
		"b.md.tmpl /note_id templates/note/b.md.tmpl:4:4 whole",
		"c.md.tmpl /items/*/note templates/note/_row.tmpl:1:6 whole",
		"d.md.tmpl  templates/note/d.md.tmpl:1:4 whole",
		"zz.md.tmpl /meta/source templates/note/zz.md.tmpl:1:20 whole",
		// A path into a name of the engine's own is a read of that path.
		"e.md.tmpl /budget/omitted/items templates/note/e.md.tmpl:1:9 whole",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no read %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, g := range got {
		if strings.HasPrefix(g, "e.md.tmpl /budget ") {
			t.Errorf("read of the whole budget %q: .budget.omitted.items reads that count alone", g)
		}
	}
	for _, c := range []struct {
		path  string
		whole bool
		field string
		want  bool
	}{
		{"/now", true, "/now", true},
		{"/trigger/type", false, "/trigger", true},
		{"/trigger", false, "/trigger/type", false},
		{"/trigger", true, "/trigger/type", true},
		{"", true, "/now", true},
		{"/items/*/at", false, "/items/0/at", true},
		{"/title", true, "/now", false},
	} {
		if got := lint.Touches(c.path, c.whole, c.field); got != c.want {
			t.Errorf("Touches(%q, %t, %q) = %t", c.path, c.whole, c.field, got)
		}
	}
}
