package parsetree

import (
	"fmt"
	"strings"
	"testing"
	"text/template/parse"
)

// TestInspectVisitsInWrittenOrder: every node and empty slot is visited
// once, a parent before its children, in the order the template writes
// them; a visit that returns false skips the node's children.
func TestInspectVisitsInWrittenOrder(t *testing.T) {
	t.Parallel()
	src := `a{{ if .b }}{{ template "t" }}{{ else }}{{ (.c).d }}{{ end }}{{ range .e }}{{ with "f" }}g{{ end }}{{ end }}`
	trees, err := parse.Parse("x", src, "", "", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	Inspect(trees["x"].Root, func(n parse.Node) bool {
		name := strings.TrimPrefix(fmt.Sprintf("%T", n), "*parse.")
		if Empty(n) {
			name = "empty " + name
		}
		seen = append(seen, name)
		_, with := n.(*parse.WithNode)
		return !with
	})
	want := []string{
		"ListNode", "TextNode",
		"IfNode", "PipeNode", "FieldNode", // {{ if .b }}
		"ListNode", "TemplateNode", "empty PipeNode", // {{ template "t" }}
		"ListNode", "ActionNode", "PipeNode", "ChainNode", "PipeNode", "FieldNode", // {{ else }}{{ (.c).d }}
		"RangeNode", "PipeNode", "FieldNode", // {{ range .e }}
		"ListNode", "WithNode", // its children skipped
		"empty ListNode", // the range's else
	}
	if got := strings.Join(seen, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("visited\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// TestEmpty: only a nil list or pipeline, or no node at all, is empty.
func TestEmpty(t *testing.T) {
	t.Parallel()
	var list *parse.ListNode
	var pipe *parse.PipeNode
	for _, n := range []parse.Node{nil, list, pipe} {
		if !Empty(n) {
			t.Errorf("%T is not empty", n)
		}
	}
	if Empty(&parse.ListNode{}) || Empty(&parse.PipeNode{}) || Empty(&parse.TextNode{}) {
		t.Error("a node is empty")
	}
}
