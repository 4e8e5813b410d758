package typegen

import "strings"

// The model is what both writers read: named declarations holding objects
// (fields, other keys) or aliases of types, each with its doc paragraphs.

// kind is the kind of a type.
type kind int

const (
	kindAny kind = iota
	kindNever
	kindString
	kindInteger
	kindNumber
	kindBoolean
	kindNull
	kindLiteral // one of values: strings, int64, float64 or bools
	kindArray   // of elem
	kindRecord  // an object of any keys whose values are elem
	kindRef     // the declared type decl
	kindUnion   // any of members
)

// typ is a type of the model. Types are built once and never changed.
type typ struct {
	kind    kind
	values  []any
	elem    *typ
	decl    *decl
	members []*typ
}

// decl is a named type: an object (TypeScript interface, Python TypedDict)
// or, for a schema that is not an object, an alias.
type decl struct {
	name   string
	doc    []string // paragraphs; notes on what the type cannot say come last
	object *object
	alias  *typ
}

// object is an object type: its fields, in the order the schema writes
// them, and the type of other keys' values (nil: no other keys).
type object struct {
	fields []*field
	extra  *typ
}

// field is a property of an object.
type field struct {
	name     string
	typ      *typ
	required bool
	doc      []string // paragraphs of the description and notes
	format   string   // the schema's format, noted in the doc
	def      any      // the default, noted in the doc, when hasDef
	hasDef   bool
}

// model is a schema's types: root first, then every declaration in the
// order it was met, depth first.
type model struct {
	variant string
	root    *decl
	decls   []*decl
	keys    func(map[string]any) []string // object keys in written order, for defaults
}

// deps lists the declarations a type refers to, in order, without repeats.
func (t *typ) deps(seen map[*decl]bool, out []*decl) []*decl {
	if t == nil {
		return out
	}
	switch t.kind {
	case kindRef:
		if !seen[t.decl] {
			seen[t.decl] = true
			out = append(out, t.decl)
		}
	case kindArray, kindRecord:
		out = t.elem.deps(seen, out)
	case kindUnion:
		for _, m := range t.members {
			out = m.deps(seen, out)
		}
	}
	return out
}

// deps lists the declarations d refers to, in the order of its fields.
func (d *decl) deps() []*decl {
	seen := map[*decl]bool{}
	var out []*decl
	if d.object != nil {
		for _, f := range d.object.fields {
			out = f.typ.deps(seen, out)
		}
		out = d.object.extra.deps(seen, out)
	} else {
		out = d.alias.deps(seen, out)
	}
	return out
}

// union builds the union of members: nested unions are flattened, never is
// dropped, and a member that admits anything makes the union admit anything.
func union(members ...*typ) *typ {
	var flat []*typ
	for _, m := range members {
		switch m.kind {
		case kindUnion:
			flat = append(flat, m.members...)
		case kindNever:
		case kindAny:
			return m
		default:
			flat = append(flat, m)
		}
	}
	switch len(flat) {
	case 0:
		return &typ{kind: kindNever}
	case 1:
		return flat[0]
	}
	return &typ{kind: kindUnion, members: flat}
}

// isScalar reports whether v can be a literal type: a string, number or
// boolean.
func isScalar(v any) bool {
	switch v.(type) {
	case string, int64, float64, bool:
		return true
	}
	return false
}

// writeDecls writes the model's declarations in order, each after a blank
// line and its doc comment, as Go and TypeScript both lay them out: alias
// writes one that names another type, object a struct or an interface.
func writeDecls(w *strings.Builder, m *model, doc func(w *strings.Builder, indent string, paras []string), alias, object func(w *strings.Builder, d *decl)) {
	for _, d := range m.decls {
		w.WriteString("\n")
		doc(w, "", d.doc)
		if d.object == nil {
			alias(w, d)
		} else {
			object(w, d)
		}
	}
}
