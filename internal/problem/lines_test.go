package problem

import (
	"testing"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/parsetree"
)

// TestLinesAgreeWithErrorContext: every node is located where
// text/template's ErrorContext locates it, on the first line and after,
// with and without the text.
func TestLinesAgreeWithErrorContext(t *testing.T) {
	t.Parallel()
	src := "{{ if .a }}x{{ end }}\n\n  {{ range .b }}{{ .c }}\n{{ end }}{{/* a\ncomment */}}{{ with .d\n }}y{{ end }}\n"
	trees, err := parse.Parse("f.tmpl", src, "", "", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	tree := trees["f.tmpl"]
	with := NewLines(func(name string) (string, bool) { return src, name == "f.tmpl" })
	without := NewLines(nil)
	count := 0
	parsetree.Inspect(tree.Root, func(n parse.Node) bool {
		if parsetree.Empty(n) {
			return false
		}
		count++
		want, _ := tree.ErrorContext(n)
		if got := with.Loc(tree, n); got != want {
			t.Errorf("%s: %s with the text, want %s", n, got, want)
		}
		if got := without.Loc(tree, n); got != want {
			t.Errorf("%s: %s without the text, want %s", n, got, want)
		}
		if got, want := with.Line(tree, n), TemplateLine(tree, n); got != want {
			t.Errorf("%s: line %d, want %d", n, got, want)
		}
		return true
	})
	if count < 15 {
		t.Fatalf("walked %d nodes", count)
	}
}
