package schema

import (
	"encoding/json"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// About is what a schema says of one field at a node, for a person
// reading or writing it: an editor's completion and hover show it, and
// Position is where to jump to read it whole.
type About struct {
	Name        string
	Types       []string // JSON types the schemas allow ("object", "string", ...)
	Description string
	Default     string // the default as JSON, when HasDefault
	HasDefault  bool
	Enum        []string // the allowed values as JSON (const included)
	Required    bool     // some schema at the node requires the field
	// Position is file:line:col of the property's declaration.
	Position string
}

// Fields describes every property the schemas at the node name, in the
// order they are written (the first schema's first).
func (n Node) Fields() []About {
	var names []string
	for _, s := range n.closure() {
		for _, name := range n.set.propertyNames(s) {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	out := make([]About, 0, len(names))
	for _, name := range names {
		out = append(out, n.About(name))
	}
	return out
}

// About describes the field name at the node; its Position is empty when
// no schema there names it.
func (n Node) About(name string) About {
	a := About{Name: name}
	for _, s := range n.closure() {
		if slices.Contains(s.Required, name) {
			a.Required = true
		}
		p, ok := s.Properties[name]
		if !ok {
			continue
		}
		if a.Position == "" && p.Location != "" { // not one ListOf or EntriesOf made
			a.Position = n.set.position(p, "")
		}
		n.set.describe(p, &a)
	}
	return a
}

// Self describes the node itself: its types, enum and description, as
// the value of a field is completed.
func (n Node) Self() About {
	var a About
	for _, s := range n.alts {
		n.set.describe(s, &a)
	}
	return a
}

// describe fills in what a is still missing from the schema s and those it
// refers to.
func (s *Set) describe(sch *jsonschema.Schema, a *About) {
	visitOnce(sch, map[*jsonschema.Schema]bool{}, applied, func(sch *jsonschema.Schema) {
		if a.Description == "" {
			a.Description = sch.Description
		}
		for _, t := range sch.Types {
			if !slices.Contains(a.Types, t) {
				a.Types = append(a.Types, t)
			}
		}
		if !a.HasDefault {
			if d, ok := s.rawNode(sch)["default"]; ok {
				a.Default, a.HasDefault = jsonText(d), true
			}
		}
		if len(a.Enum) == 0 {
			for _, e := range sch.Enum {
				a.Enum = append(a.Enum, jsonText(e))
			}
			if sch.Constant != nil {
				a.Enum = append(a.Enum, jsonText(sch.Constant[0]))
			}
		}
	})
}

// jsonText is a value as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
