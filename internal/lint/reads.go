package lint

import (
	"slices"
	"strings"
	"text/template"
)

// Read is an input field a template reads, with where: Template is the
// template walked from the top (a section's file) and Position the
// file:line:col of the action that reads it, in that template or in a
// partial it includes. Path is a JSON pointer with * for the items of a
// list; Whole is set when the value is used as it is (printed, passed to a
// function), so that everything inside it is read too.
type Read struct {
	Template string `json:"template"`
	Path     string `json:"path"`
	Whole    bool   `json:"whole,omitempty"`
	Position string `json:"position"`
}

// Reads walks each template of the set from the top, as Check does,
// following the partials it includes with what it passes them, and
// returns what each reads, in the order of the templates' names and then
// of the walk. A field of the engine's own (t.Extra, an id) is a read of
// /<name>. Nothing is reported: Check says what is wrong.
func Reads(t Templates) []Read {
	w := &walker{t: t, seen: map[string]bool{}, followed: map[string]bool{}, refs: map[string]map[string]bool{}, sites: true, quiet: 1}
	tmpls := t.Set.Templates()
	slices.SortFunc(tmpls, func(a, b *template.Template) int { return strings.Compare(a.Name(), b.Name()) })
	for _, tmpl := range tmpls {
		if tmpl.Tree == nil || tmpl.Tree.Root == nil {
			continue
		}
		w.tree, w.top, w.at = tmpl.Tree, tmpl.Name(), nil
		root := value{open: true}
		if t.RootData(tmpl.Name()) {
			root = value{node: t.Root, path: "", root: true}
		}
		w.list(tmpl.Tree.Root, newScope(root))
	}
	return w.uses
}

// Touches reports whether a read of path (whole or not) depends on the
// value at the JSON pointer field: it reads the field or something inside
// it, or uses whole something the field is inside. * in either stands for
// any one token.
func Touches(path string, whole bool, field string) bool {
	p, f := splitPath(path), splitPath(field)
	return prefix(f, p) || (whole && prefix(p, f))
}
