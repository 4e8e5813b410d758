package engine

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine/lint"
)

// Lint checks the variant statically, before any input: every field its
// templates read, in every branch, against the schema; include and
// template names; the schema's own defaults, examples and descriptions.
// It warns of what is there for nothing: a property of the schema that no
// template reads (nor the manifest), a partial no template includes, a
// code fence a section opens and never closes. Examples are rendered by
// render test, not here.
func (v *Variant) Lint() []lint.Finding {
	extra := slices.Sorted(maps.Keys(v.manifest.IDs))
	if len(v.manifest.Budget) > 0 {
		extra = append(extra, "budget")
	}
	rootData := func(name string) bool {
		if strings.HasPrefix(name, "prompt.yaml ") || slices.Contains(v.choiceFiles, name) {
			return true
		}
		return slices.Contains(v.manifest.Sections, strings.TrimSuffix(name, ".md.tmpl")) && strings.HasSuffix(name, ".md.tmpl")
	}
	props := v.schema.Declared()
	for i := range props {
		props[i].Position = v.lib.labelOnce(props[i].Position)
	}
	out := lint.Check(lint.Templates{
		Set:        v.tmpl,
		Dir:        v.dir,
		Root:       v.schema.Root(),
		Extra:      extra,
		RootData:   rootData,
		Section:    func(name string) bool { return rootData(name) && strings.HasSuffix(name, ".md.tmpl") },
		Variant:    v.name,
		SchemaFile: v.schemaFile(),
		Properties: props,
		Used:       v.manifestReads(),
	})
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
