package engine

import (
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine/lint"
)

// Lint checks the variant statically, before any input: every field its
// templates read, in every branch, against the schema; include and
// template names; the schema's own defaults, examples and descriptions.
// Examples are rendered by render test, not here.
func (v *Variant) Lint() []lint.Finding {
	extra := slices.Sorted(func(yield func(string) bool) {
		for name := range v.manifest.IDs {
			if !yield(name) {
				return
			}
		}
	})
	if len(v.manifest.Budget) > 0 {
		extra = append(extra, "budget")
	}
	out := lint.Check(lint.Templates{
		Set:   v.tmpl,
		Dir:   v.dir,
		Root:  v.schema.Root(),
		Extra: extra,
		RootData: func(name string) bool {
			if strings.HasPrefix(name, "prompt.yaml ") || slices.Contains(v.choiceFiles, name) {
				return true
			}
			return slices.Contains(v.manifest.Sections, strings.TrimSuffix(name, ".md.tmpl")) && strings.HasSuffix(name, ".md.tmpl")
		},
	})
	for _, p := range v.schema.Lint() {
		sev := lint.Error
		if p.Warning {
			sev = lint.Warning
		}
		out = append(out, lint.Finding{Position: v.lib.label(p.Position), Severity: sev, Message: p.Message})
	}
	return out
}
