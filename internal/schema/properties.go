package schema

import (
	"slices"

	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Property is a property the schema declares for the input, where it
// stands in the input and where it is written.
type Property struct {
	// Paths are the JSON pointers of the input fields it describes, with *
	// for every item of an array or value of an object (/tools/*/name):
	// more than one when a definition is used in several places.
	Paths []string
	// Position is file:line:col of its declaration in the schema files.
	Position string
}

// Declared lists every property the schema declares, by position: those
// under properties, through $ref, allOf, anyOf, oneOf, items and
// additionalProperties, each once however many fields it describes. The
// properties of conditions and of the branches that restate what a
// condition implies (if, then, else, not), and properties declared true or
// false, describe fields declared elsewhere and are not listed; nor is a
// recursive schema followed into itself.
func (sc *Schema) Declared() []Property {
	byPos := map[string]*Property{}
	var order []string
	onStack := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema, path string)
	walk = func(s *jsonschema.Schema, path string) {
		if s == nil || onStack[s] {
			return
		}
		onStack[s] = true
		defer delete(onStack, s)
		walk(s.Ref, path)
		for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, b := range group {
				walk(b, path)
			}
		}
		for _, name := range sc.set.propertyNames(s) {
			p := s.Properties[name]
			if p.Always != nil {
				continue
			}
			at := pointer.Append(path, name)
			pos := sc.set.position(p, "")
			prop := byPos[pos]
			if prop == nil {
				prop = &Property{Position: pos}
				byPos[pos] = prop
				order = append(order, pos)
			}
			if !slices.Contains(prop.Paths, at) {
				prop.Paths = append(prop.Paths, at)
			}
			walk(p, at)
		}
		walk(s.Items2020, path+"/*")
		for _, p := range s.PrefixItems {
			walk(p, path+"/*")
		}
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			walk(a, path+"/*")
		}
		for _, p := range s.PatternProperties {
			walk(p, path+"/*")
		}
	}
	walk(sc.compiled, "")
	out := make([]Property, 0, len(order))
	for _, pos := range order {
		out = append(out, *byPos[pos])
	}
	slices.SortStableFunc(out, func(a, b Property) int { return problem.ComparePositions(a.Position, b.Position) })
	return out
}
