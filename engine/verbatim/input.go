package verbatim

import (
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// Of returns the markers a manifest declares for a region.
func Of(vb manifest.Verbatim) Markers { return Markers{vb.Start, vb.End} }

// CheckInput enforces, before rendering, everything that keeps the verbatim
// fields of doc extractable: each exists, fits its limit, its markers
// balance, no other input string carries marker text, and no string at
// all carries text that reads as a marker once its invisible characters
// are dropped (hiddenMarker).
func CheckInput(doc *input.Document, decls []manifest.Verbatim) error {
	root := doc.Root
	for _, vb := range decls {
		raw, ok := pointer.Lookup(root, vb.Field)
		if !ok {
			return problem.Input(vb.Field, "required field is missing").
				Hint("%s is embedded verbatim in the prompt; pass it as a string", vb.Field)
		}
		s, ok := raw.(string)
		if !ok {
			return problem.Input(vb.Field, "expected a string, got %s", input.TypeName(raw))
		}
		limit := vb.MaxBytes
		if vb.MaxBytesFrom != "" {
			if lv, ok := pointer.Lookup(root, vb.MaxBytesFrom); ok && lv != nil {
				n, isInt := lv.(int64)
				if !isInt || n <= 0 {
					return problem.Input(vb.MaxBytesFrom, "expected a positive number of bytes, got %s", input.Short(lv, doc.Order()))
				}
				limit = int(min(n, 1<<62))
			}
		}
		if limit > 0 && len(s) > limit {
			e := problem.Input(vb.Field, "%s is %s, over the limit of %s: refused, it is never truncated",
				vb.Name, phrase.Size(len(s)), phrase.Size(limit))
			if vb.MaxBytesFrom != "" {
				e.Hint("shorten it, or raise the limit with %s", vb.MaxBytesFrom)
			} else {
				e.Hint("shorten it")
			}
			return e
		}
		if err := Of(vb).CheckField(s); err != nil {
			return problem.Input(vb.Field, "%s: %v", vb.Name, err).
				Hint("marker lines %q and %q must come in nested pairs, as in a prompt this variant rendered", vb.Start, vb.End)
		}
	}
	if len(decls) == 0 {
		return nil
	}
	// Maps are walked in Go's order here, so of several offending fields the
	// first in pointer order is reported, to keep the error deterministic.
	var bad *problem.Error
	fields := make([][]string, len(decls))
	for i, vb := range decls {
		fields[i] = pointer.Split(vb.Field)
	}
	input.WalkStrings(root, func(path []string, s string) {
		for i, vb := range decls {
			if h, ok := Of(vb).hiddenMarker(s); ok {
				// Marker text with invisible characters in it, or other
				// spaces: a model reads it as the marker, wherever it is.
				ptr := pointer.Join(path)
				if bad != nil && bad.Field <= ptr {
					continue
				}
				bad = problem.Input(ptr, "line %d reads as the marker %q of %s once its invisible characters are dropped (it holds %s)",
					h.Line, h.Marker, vb.Name, CodePoint(h.Rune)).
					Hint("remove the marker text, or the invisible characters in it: a model reading the prompt would take it for a marker")
				continue
			}
			if slices.Equal(path, fields[i]) { // the field itself, checked above
				continue
			}
			if !strings.Contains(s, vb.Start) && !strings.Contains(s, vb.End) {
				continue
			}
			ptr := pointer.Join(path)
			if bad != nil && bad.Field <= ptr {
				continue
			}
			bad = problem.Input(ptr, "contains the marker text of %s", vb.Name).
				Hint("only %s may hold %q or %q; remove the marker from this field", vb.Field, vb.Start, vb.End)
		}
	})
	if bad != nil {
		return bad
	}
	return nil
}
