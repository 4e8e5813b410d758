package engine

import (
	"strconv"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/parsetree"
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
	parsetree.Inspect(tree.Root, func(n parse.Node) bool {
		if r, ok := n.(*parse.RangeNode); ok {
			found = append(found, r)
		}
		return true
	})
	if len(found) != len(ranges) || len(found) != 54 {
		t.Fatalf("%d ranges recorded, %d in the tree", len(ranges), len(found))
	}
	numbered := map[int]bool{}
	for _, r := range found {
		i := rangeNumber(t, r)
		if numbered[i] {
			t.Fatalf("range %d numbered twice", i)
		}
		numbered[i] = true
		if ranges[i].Body != nodes(r.List) {
			t.Errorf("range %d (%s): body %d, want %d", i, ranges[i].Pipe, ranges[i].Body, nodes(r.List))
		}
	}
}

// rangeNumber is the number seqRanges gave a range, which the function
// ending its pipeline carries.
func rangeNumber(t *testing.T, r *parse.RangeNode) int {
	t.Helper()
	prefix := funcs.SeqFunc
	if len(r.Pipe.Decl) > 1 {
		prefix = funcs.Seq2Func
	}
	last := r.Pipe.Cmds[len(r.Pipe.Cmds)-1].String()
	n, err := strconv.Atoi(strings.TrimPrefix(last, prefix))
	if err != nil || !strings.HasPrefix(last, prefix) {
		t.Fatalf("range %s ends in %s, not %s and a number", r.Pipe, last, prefix)
	}
	return n
}
