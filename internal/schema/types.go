package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The types a node allows, in the schema's words, for checks of templates
// before any input: a comparison of an integer with a text, a range over a
// text. A node says its types only when every schema that may apply there
// says them: one without a type (any value) makes the node's types unknown,
// and nothing is checked against it.

// jsonTypes are JSON Schema's type names.
func jsonTypes() []string {
	return []string{"array", "boolean", "integer", "null", "number", "object", "string"}
}

// Types are the JSON types a value at the node may have, sorted ("integer"
// is among them when "number" is), or nil when the schema does not say.
func (n Node) Types() []string {
	if n.Open() {
		return nil
	}
	var out []string
	for _, s := range n.alts {
		t, known := typesOf(s, 0)
		if !known {
			return nil
		}
		out = append(out, t...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// typesOf is the types one schema allows, and whether it says them: its
// type, narrowed by a $ref and allOf, or the types of its anyOf or oneOf
// branches, or of its const or enum values.
func typesOf(s *jsonschema.Schema, depth int) ([]string, bool) {
	if s == nil || depth > 16 {
		return nil, false
	}
	var set []string
	known := false
	narrow := func(t []string, ok bool) {
		if !ok {
			return
		}
		if !known {
			set, known = t, true
			return
		}
		set = intersect(set, t)
	}
	if len(s.Types) > 0 {
		narrow(widen(s.Types), true)
	}
	if s.Ref != nil {
		narrow(typesOf(s.Ref, depth+1))
	}
	for _, a := range s.AllOf {
		narrow(typesOf(a, depth+1))
	}
	for _, group := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(group) == 0 {
			continue
		}
		var union []string
		all := true
		for _, b := range group {
			t, ok := typesOf(b, depth+1)
			all = all && ok
			union = append(union, t...)
		}
		if all {
			narrow(widen(union), true)
		}
	}
	if vals, ok := values(s); ok {
		var t []string
		for _, v := range vals {
			t = append(t, valueType(v)...)
		}
		narrow(widen(t), true)
	}
	slices.Sort(set)
	return slices.Compact(set), known
}

// widen adds integer to a set of types that has number: an integer is a
// number.
func widen(t []string) []string {
	t = slices.Clone(t)
	if slices.Contains(t, "number") && !slices.Contains(t, "integer") {
		t = append(t, "integer")
	}
	slices.Sort(t)
	return slices.Compact(t)
}

func intersect(a, b []string) []string {
	var out []string
	for _, t := range a {
		if slices.Contains(b, t) {
			out = append(out, t)
		}
	}
	return out
}

// valueType is the JSON type of a value of a const or enum.
func valueType(v any) []string {
	switch v := v.(type) {
	case nil:
		return []string{"null"}
	case bool:
		return []string{"boolean"}
	case string:
		return []string{"string"}
	case []any:
		return []string{"array"}
	case map[string]any:
		return []string{"object"}
	default:
		s := fmt.Sprint(v)
		if strings.ContainsAny(s, ".eE") {
			return []string{"number"}
		}
		return []string{"integer", "number"}
	}
}

// values are the values a schema allows, when const or enum lists them.
func values(s *jsonschema.Schema) ([]any, bool) {
	if len(s.Constant) > 0 {
		return s.Constant[:1], true
	}
	if s.Enum != nil {
		return s.Enum, true
	}
	return nil, false
}

// Enum are the values a value at the node may be, when every schema that
// may apply there lists them (enum or const, through $ref and allOf).
func (n Node) Enum() ([]any, bool) {
	if n.Open() {
		return nil, false
	}
	var out []any
	for _, s := range n.alts {
		vals, ok := enumOf(s, 0)
		if !ok {
			return nil, false
		}
		out = append(out, vals...)
	}
	return out, true
}

func enumOf(s *jsonschema.Schema, depth int) ([]any, bool) {
	if s == nil || depth > 16 {
		return nil, false
	}
	if vals, ok := values(s); ok {
		return vals, true
	}
	if s.Ref != nil {
		if vals, ok := enumOf(s.Ref, depth+1); ok {
			return vals, true
		}
	}
	for _, a := range s.AllOf {
		if vals, ok := enumOf(a, depth+1); ok {
			return vals, true
		}
	}
	return nil, false
}

// MaxItems is the most items a list at the node may hold, or -1 when the
// schema sets no bound.
func (n Node) MaxItems() int {
	if n.Open() {
		return -1
	}
	most := -1
	for _, s := range n.alts {
		m := -1
		for _, c := range (Node{set: n.set, alts: []*jsonschema.Schema{s}}).closure() {
			if c.MaxItems >= 0 && (m < 0 || c.MaxItems < m) && !isBranch(s, c) {
				m = c.MaxItems
			}
		}
		if m < 0 {
			return -1
		}
		most = max(most, m)
	}
	return most
}

// isBranch reports whether c is one of several branches of s (anyOf,
// oneOf), whose bound holds only in that branch.
func isBranch(s, c *jsonschema.Schema) bool {
	return slices.Contains(s.AnyOf, c) || slices.Contains(s.OneOf, c)
}

// Words says what the node holds as the schema says it: "integer",
// "string (one of fast, slow)", "list of objects", "object with fields a,
// b", "string or null"; "" when the schema does not say.
func (n Node) Words() string {
	types := n.Types()
	if types == nil {
		return ""
	}
	if slices.Contains(types, "number") {
		types = slices.DeleteFunc(types, func(t string) bool { return t == "integer" })
	}
	var words []string
	for _, t := range types {
		if t != "null" {
			words = append(words, n.typeWords(t))
		}
	}
	if slices.Contains(types, "null") {
		words = append(words, "null") // "string or null", as authors write a nullable field
	}
	w := strings.Join(words, " or ")
	if vals, ok := n.Enum(); ok && len(vals) > 0 && len(vals) <= 12 {
		w += " (one of " + valueList(vals) + ")"
	}
	return w
}

func (n Node) typeWords(t string) string {
	switch t {
	case "array":
		if elem := n.Elem(); !elem.Open() {
			if et := elem.Types(); len(et) == 1 || (len(et) == 2 && slices.Contains(et, "number")) {
				return "list of " + plural(et[len(et)-1])
			}
		}
		return "list"
	case "object":
		if names := n.Names(); len(names) > 0 {
			if len(names) > 8 {
				names = append(names[:8:8], "…")
			}
			return "object with fields " + strings.Join(names, ", ")
		}
		return "object"
	}
	return t
}

func plural(t string) string {
	switch t {
	case "array":
		return "lists"
	case "boolean":
		return "booleans"
	case "null":
		return "nulls"
	}
	return t + "s"
}

// valueList writes values as a template would write them: "fast", 3.
func valueList(vals []any) string {
	var out []string
	for _, v := range vals {
		if s, ok := v.(string); ok {
			out = append(out, fmt.Sprintf("%q", s))
		} else {
			out = append(out, jsonText(v))
		}
	}
	return strings.Join(out, ", ")
}
