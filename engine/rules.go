package engine

import (
	"fmt"
	"slices"
	"strings"
)

// checkRules applies the manifest's input rules: what a JSON Schema cannot
// say, such as "every override names a tool the parent has".
func (v *Variant) checkRules(root map[string]any) error {
	r := v.Manifest.Rules
	for _, pattern := range r.Unique {
		seen := map[string]string{}
		for _, m := range matchAll(root, pattern) {
			key := canonicalKey(m.value)
			if first, dup := seen[key]; dup {
				return inputErr(m.ptr, "%s repeats the value of %s", shortJSON(m.value), first).
					hint("values at %s must be unique", pattern)
			}
			seen[key] = m.ptr
		}
	}
	for _, ref := range r.References {
		var known []string
		for _, m := range matchAll(root, ref.In) {
			known = append(known, fmt.Sprint(m.value))
		}
		for _, m := range matchAll(root, ref.Field) {
			s := fmt.Sprint(m.value)
			if slices.Contains(known, s) {
				continue
			}
			e := inputErr(m.ptr, "%s is not one of the values at %s", shortJSON(m.value), ref.In)
			if near := closest(s, known); near != "" {
				e.hint("did you mean %q?", near)
			}
			if len(known) > 0 {
				e.hint("the values there are: %s", strings.Join(known, ", "))
			} else {
				e.hint("%s is empty", ref.In)
			}
			return e
		}
	}
	for _, c := range r.TemplateChoice {
		val, ok := lookup(root, c.Field)
		if !ok || val == nil {
			continue
		}
		names := v.choices[c.Field]
		if s, isStr := val.(string); isStr && slices.Contains(names, s) {
			continue
		}
		e := inputErr(c.Field, "unknown value %s", shortJSON(val))
		if s, isStr := val.(string); isStr {
			if near := closest(s, names); near != "" {
				e.hint("did you mean %q?", near)
			}
		}
		return e.hint("the values there are: %s (one template each, %s)", strings.Join(names, ", "), c.Templates)
	}
	return nil
}
