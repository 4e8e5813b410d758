package engine

import (
	"strings"
	"testing"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
)

// TestSeqRangesCountsEachNodeOnce: the body size recorded for each range
// is what nodes counts below it, ranges nested in ranges included, while
// the rewrite walks the tree once (counting each range's body anew made
// deeply nested ranges cost the square of their depth before a render
// began).
func TestSeqRangesCountsEachNodeOnce(t *testing.T) {
	t.Parallel()
	src := `{{ range $i, $v := .a }}{{ if .b }}{{ range (list 1 2) }}{{ with .c }}{{ . }}{{ else }}x{{ end }}{{ end }}{{ else }}{{ range .d }}{{ print (len .) }}{{ end }}{{ end }}{{ else }}{{ range .e }}{{ end }}{{ end }}` +
		strings.Repeat("{{ range .f }}", 50) + "y" + strings.Repeat("{{ end }}", 50)
	trees, err := parse.Parse("t", src, "", "", map[string]any{"list": 0, "print": 0, "len": 0})
	if err != nil {
		t.Fatal(err)
	}
	tree := trees["t"]
	var ranges []funcs.Range
	total := seqRanges(tree, tree.Root, &ranges)
	if want := nodes(tree.Root); total != want {
		t.Errorf("nodes below the root: %d, want %d", total, want)
	}
	var found []*parse.RangeNode
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
			found = append(found, n) // in the order seqRanges numbers them
		}
	}
	walk(tree.Root)
	if len(found) != len(ranges) || len(found) != 54 {
		t.Fatalf("%d ranges recorded, %d in the tree", len(ranges), len(found))
	}
	for i, r := range found {
		if ranges[i].Body != nodes(r.List) {
			t.Errorf("range %d (%s): body %d, want %d", i, ranges[i].Pipe, ranges[i].Body, nodes(r.List))
		}
	}
}
