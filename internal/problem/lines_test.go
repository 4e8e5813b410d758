package problem

import (
	"testing"
	"text/template/parse"
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
	var walk func(parse.Node)
	count := 0
	walk = func(n parse.Node) {
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
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				for _, a := range c.Args {
					walk(a)
				}
			}
		}
	}
	walk(tree.Root)
	if count < 15 {
		t.Fatalf("walked %d nodes", count)
	}
}
