package engine

import (
	"strconv"

	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// checkBidi refuses an input string (or key) that holds a bidirectional
// control (U+202E RIGHT-TO-LEFT OVERRIDE and the like: text that displays
// in another order than it is read), naming the field and the code point,
// unless the schema allows them at that field with
// "x-promptsmith-allow-bidi": true. Of several, the first in pointer
// order is named, so the error does not depend on map order.
func checkBidi(doc *input.Document, root schema.Node) error {
	var bad *problem.Error
	input.WalkStrings(doc.Root, func(path []string, s string) {
		r, at, ok := verbatim.FirstBidi(s)
		if !ok {
			return
		}
		ptr := pointer.Join(path)
		if bad != nil && bad.Field <= ptr {
			return
		}
		if nodeAt(doc.Root, root, path).AllowsBidi() {
			return
		}
		bad = problem.Input(ptr, "holds the bidirectional control %s at byte %d: it can make the text display in another order than a model reads it",
			verbatim.CodePoint(r), at).
			Hint("remove it; if the field's language needs it, the schema can allow it there with \"%s\": true", schema.AllowBidiKeyword)
	})
	if bad != nil {
		return bad
	}
	return nil
}

// nodeAt is the schema node of the value at path in v.
func nodeAt(v any, n schema.Node, path []string) schema.Node {
	for _, tok := range path {
		switch c := v.(type) {
		case []any:
			i, _ := strconv.Atoi(tok)
			if i >= 0 && i < len(c) {
				v = c[i]
			}
			n = n.Elem()
		case map[string]any:
			v = c[tok]
			n, _ = n.Field(tok)
		}
	}
	return n
}
