package schema

import (
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Node is a place in a schema that a template's field path reaches: the
// schemas that may apply there, with $ref, allOf, anyOf, oneOf and
// if/then/else followed. A Node with no schema allows anything.
type Node struct {
	set  *Set
	alts []*jsonschema.Schema
}

// Root is the node of the whole input.
func (sc *Schema) Root() Node { return Node{set: sc.set, alts: []*jsonschema.Schema{sc.compiled}} }

// Open reports whether the node says nothing of what it holds: any field
// may be read from it.
func (n Node) Open() bool { return len(n.alts) == 0 }

// closure is every schema that applies at the node.
func (n Node) closure() []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	next := func(s *jsonschema.Schema) []*jsonschema.Schema { return append(applied(s), s.Then, s.Else) }
	for _, s := range n.alts {
		visitOnce(s, seen, next, func(s *jsonschema.Schema) { out = append(out, s) })
	}
	return out
}

// FieldStatus says what a schema knows of a field.
type FieldStatus int

const (
	Declared FieldStatus = iota // a property the schema names
	Allowed                     // not named, but the schema allows any field here
	Unknown                     // the schema allows no such field
)

// Field is the node of the field name, and whether the schema declares it.
// A schema that names an object's properties is taken to describe it
// whole, as authors write them, even without additionalProperties: false;
// one that names none, or allows other properties with a schema or a
// pattern, allows any name.
func (n Node) Field(name string) (Node, FieldStatus) {
	if n.Open() {
		return Node{set: n.set}, Allowed
	}
	var declared, extra []*jsonschema.Schema
	described := false
	for _, s := range n.closure() {
		if p, ok := s.Properties[name]; ok {
			declared = append(declared, p)
		}
		for re, p := range s.PatternProperties {
			if re.MatchString(name) {
				extra = append(extra, p)
			}
		}
		switch add := s.AdditionalProperties.(type) {
		case *jsonschema.Schema:
			extra = append(extra, add)
		case bool:
			if add {
				return Node{set: n.set}, Allowed
			}
			described = true
		}
		described = described || len(s.Properties) > 0 || s.Items2020 != nil || onlyType(s, "array", "string", "number", "integer", "boolean")
	}
	switch {
	case len(declared) > 0:
		return Node{set: n.set, alts: declared}, Declared
	case len(extra) > 0:
		return Node{set: n.set, alts: extra}, Allowed
	case !described:
		return Node{set: n.set}, Allowed
	}
	return Node{set: n.set}, Unknown
}

// Elem is the node of the elements of a list, or of the values of an
// object (what range gives).
func (n Node) Elem() Node {
	var out []*jsonschema.Schema
	for _, s := range n.closure() {
		if s.Items2020 != nil {
			out = append(out, s.Items2020)
		}
		if add, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			out = append(out, add)
		}
		for _, p := range s.Properties {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return Node{set: n.set}
	}
	return Node{set: n.set, alts: out}
}

// Names lists the properties the schema names at the node, sorted.
func (n Node) Names() []string {
	names := map[string]bool{}
	for _, s := range n.closure() {
		for name := range s.Properties {
			names[name] = true
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// Optional reports whether the field may be missing after defaults: no
// schema at the node requires it, not even in a then, else or one of
// several branches (a template reads such a field in the branch that
// requires it), and none gives it a default. A field that is optional is
// read safely only with hasKey or get.
func (n Node) Optional(name string) bool {
	if n.Open() {
		return false
	}
	for _, s := range n.closure() {
		if slices.Contains(s.Required, name) {
			return false
		}
	}
	for _, s := range n.closure() {
		if p, ok := s.Properties[name]; ok && n.set.hasDefault(p) {
			return false
		}
	}
	return true
}

func (s *Set) hasDefault(p *jsonschema.Schema) bool {
	if _, ok := s.rawNode(p)["default"]; ok {
		return true
	}
	return p.Ref != nil && s.hasDefault(p.Ref)
}

// onlyType reports whether the schema allows only types that have no fields.
func onlyType(s *jsonschema.Schema, types ...string) bool {
	if len(s.Types) == 0 {
		return false
	}
	for _, t := range s.Types {
		if !slices.Contains(types, t) {
			return false
		}
	}
	return true
}

// AllowBidiKeyword is the schema keyword that lets a string property hold
// bidirectional controls (U+202E and the like), which inputs are otherwise
// refused for: "x-promptsmith-allow-bidi": true, for text in a language
// that needs them.
const AllowBidiKeyword = "x-promptsmith-allow-bidi"

// AllowsBidi reports whether a schema at the node says
// "x-promptsmith-allow-bidi": true.
func (n Node) AllowsBidi() bool {
	for _, s := range n.closure() {
		if v, ok := n.set.rawNode(s)[AllowBidiKeyword].(bool); ok && v {
			return true
		}
	}
	return false
}
