package engine

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/lint"
)

// Lint checks the variant statically, before any input: every field its
// templates read, in every branch, against the schema; include and
// template names; the schema's own defaults, examples and descriptions.
// It warns of what is there for nothing: a property of the schema that no
// template reads (nor the manifest), a partial no template includes, a
// code fence a section opens and never closes. Examples are rendered by
// render test, not here.
func (v *Variant) Lint() []lint.Finding {
	props := v.schema.Declared()
	for i := range props {
		props[i].Position = v.lib.labelOnce(props[i].Position)
	}
	t := v.lintTemplates()
	t.Properties, t.Used = props, v.manifestReads()
	out := lint.Check(t)
	if v.manifest.Cache != nil {
		out = append(out, v.cacheFindings(v.CacheReport())...)
	}
	out = append(out, v.headingFindings()...)
	for _, p := range v.schema.Lint() {
		sev := lint.Error
		if p.Warning {
			sev = lint.Warning
		}
		out = append(out, lint.Finding{Position: v.lib.labelOnce(p.Position), Severity: sev, Kind: lint.KindLint, Message: p.Message})
	}
	return out
}

// manifestReads are the input fields the engine reads for the manifest:
// those it names (manifest.Pointers), and the fields of list items a
// budget sorts or picks by.
func (v *Variant) manifestReads() []string {
	var out []string
	for _, p := range v.manifest.Pointers() {
		if p != "" {
			out = append(out, p)
		}
	}
	for _, u := range v.manifest.Budget {
		if u.List == "" {
			continue
		}
		if u.By != "" {
			out = append(out, u.List+"/*/"+u.By)
		}
		for k := range u.Where {
			out = append(out, u.List+"/*/"+k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// labelOnce is label for a position the schema set may have labelled
// already: its files are named with the library's origin.
func (lib *Library) labelOnce(p string) string {
	if o := lib.opts.origin; o != "" && (p == o || strings.HasPrefix(p, filepath.Clean(o)+string(filepath.Separator)) || strings.HasPrefix(p, o+"/")) {
		return p
	}
	return lib.label(p)
}
