package gather

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/pointer"
)

// Complete merges gathered fields into a base input and returns the
// completed input as JSON: the base's keys in their order, gathered ones
// after them. A field the base already has wins. A gathered value the schema
// rejects is left out with a warning, so that a host that answers something
// unexpected never breaks the render; errors in the base are left for the
// render to report.
func Complete(v *engine.Variant, base engine.Input, found []Gathered) ([]byte, []Warning, error) {
	doc, err := input.Decode(base, nil)
	if err != nil {
		return nil, nil, err
	}
	defer doc.Release()
	var placed []string
	for _, g := range found {
		if place(doc, g) {
			placed = append(placed, g.Field)
		}
	}
	var warns []Warning
	for len(placed) > 0 {
		verr := v.Validate(engine.Input{Name: base.Name, Data: input.AppendJSON(nil, doc.Root, doc.Order(), false)})
		if verr == nil {
			break
		}
		e := engine.AsError(verr)
		field, why := "", (*engine.Error)(nil)
	search:
		for _, le := range append([]*engine.Error{e}, e.Also...) {
			for _, f := range placed {
				if le.Field == f || strings.HasPrefix(le.Field, f+"/") {
					field, why = f, le
					break search
				}
			}
		}
		if field == "" {
			break
		}
		remove(doc, field)
		placed = slices.DeleteFunc(placed, func(f string) bool { return f == field })
		warns = append(warns, Warning{Field: field,
			Reason: fmt.Sprintf("left out: the gathered value does not fit the schema (%s: %s)", why.Field, why.Reason)})
	}
	out := input.AppendJSON(nil, doc.Root, doc.Order(), true)
	return append(out, '\n'), warns, nil
}

// place sets a gathered field unless the base has it, creating the objects
// on its way; it reports whether it did.
func place(doc *input.Document, g Gathered) bool {
	toks := pointer.Split(g.Field)
	cur := doc.Root
	for _, tok := range toks[:len(toks)-1] {
		next, ok := cur[tok]
		if !ok {
			m := map[string]any{}
			cur[tok] = m
			doc.AppendKey(cur, tok)
			cur = m
			continue
		}
		m, isObject := next.(map[string]any)
		if !isObject {
			return false // the base has something else there, and wins
		}
		cur = m
	}
	last := toks[len(toks)-1]
	if _, ok := cur[last]; ok {
		return false
	}
	var from *input.KeyOrder
	if g.doc != nil {
		from = g.doc.Order()
	}
	cur[last] = doc.Copy(g.Value, from)
	doc.AppendKey(cur, last)
	return true
}

func remove(doc *input.Document, field string) {
	parent, ok := pointer.Lookup(doc.Root, pointer.Parent(field))
	m, isObject := parent.(map[string]any)
	if !ok || !isObject {
		return
	}
	toks := pointer.Split(field)
	doc.Delete(m, toks[len(toks)-1])
}
