package schema

import (
	"maps"
	"slices"
	"strconv"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// inPlace are the schemas that apply to the same value as sch, as its
// parts: its references, its allOf, anyOf and oneOf branches, its
// condition and the branches it chooses, its dependent schemas. What
// they declare is declared for the object sch describes.
func inPlace(sch *jsonschema.Schema) []*jsonschema.Schema {
	out := append(applied(sch), sch.DynamicRef, sch.If, sch.Then, sch.Else, sch.Not)
	for _, k := range slices.Sorted(maps.Keys(sch.DependentSchemas)) {
		out = append(out, sch.DependentSchemas[k])
	}
	return out
}

// objects groups the schemas under root that describe one value
// together (a schema and those inPlace links to it, either way), for
// the names a required list may name: those any of them declares.
type objects struct {
	up, down map[*jsonschema.Schema][]*jsonschema.Schema
	// condition are the schemas that test a value rather than describe
	// it (if, not, and their branches): they may name what is not
	// declared, to ask whether it is there.
	condition map[*jsonschema.Schema]bool
}

func newObjects(root *jsonschema.Schema) *objects {
	o := &objects{up: map[*jsonschema.Schema][]*jsonschema.Schema{}, down: map[*jsonschema.Schema][]*jsonschema.Schema{},
		condition: map[*jsonschema.Schema]bool{}}
	visitOnce(root, map[*jsonschema.Schema]bool{}, subschemas, func(s *jsonschema.Schema) {
		for _, c := range inPlace(s) {
			if c != nil {
				o.down[s] = append(o.down[s], c)
				o.up[c] = append(o.up[c], s)
			}
		}
		for _, c := range []*jsonschema.Schema{s.If, s.Not} {
			visitOnce(c, o.condition, applied, func(*jsonschema.Schema) {})
		}
	})
	return o
}

// declared lists the property names that the schemas describing the same
// value as sch declare, sorted, and the patterns they allow names by.
func (o *objects) declared(sch *jsonschema.Schema) (names []string, patterns []*jsonschema.Schema) {
	set := map[string]bool{}
	visitOnce(sch, map[*jsonschema.Schema]bool{}, func(s *jsonschema.Schema) []*jsonschema.Schema {
		return append(slices.Clone(o.up[s]), o.down[s]...)
	}, func(s *jsonschema.Schema) {
		for n := range s.Properties {
			set[n] = true
		}
		if len(s.PatternProperties) > 0 {
			patterns = append(patterns, s)
		}
	})
	return slices.Sorted(maps.Keys(set)), patterns
}

// requiredProblems checks the names sch requires against those it
// allows. A name that its own properties leave out while
// additionalProperties is false, or whose property schema is false, can
// never be given: every input fails, and the error blames the input, so
// it is an error here, at the name in the required list. A name that no
// schema describing the object declares, where other names may be given,
// is most likely a typo of one that is: a warning.
func (sc *Schema) requiredProblems(sch *jsonschema.Schema, o *objects) []Problem {
	list, _ := sc.set.rawNode(sch)["required"].([]any)
	var out []Problem
	for i, v := range list {
		name, ok := v.(string)
		if !ok {
			continue // the compiler refuses it
		}
		at := sc.set.position(sch, "required/"+strconv.Itoa(i))
		if p, ok := sch.Properties[name]; ok {
			if isFalse(p) {
				out = append(out, Problem{Position: at, Message: phrase.Quote(name) +
					" is required but its schema is false, which allows no value, so no input can satisfy it; give it a schema, or remove it from required"})
			}
			continue
		}
		if matchesPattern(sch.PatternProperties, name) {
			continue
		}
		if sch.AdditionalProperties == false {
			out = append(out, Problem{Position: at, Message: phrase.Quote(name) +
				" is required but not among the properties this object allows (additionalProperties is false), so no input can satisfy it" +
				declareIt(name, slices.DeleteFunc(sc.set.propertyNames(sch), func(n string) bool { return isFalse(sch.Properties[n]) }))})
			continue
		}
		if _, isSchema := sch.AdditionalProperties.(*jsonschema.Schema); isSchema || o.condition[sch] {
			continue // additionalProperties describes it; a condition may ask for anything
		}
		names, patterns := o.declared(sch)
		if len(names) == 0 || slices.Contains(names, name) || slices.ContainsFunc(patterns, func(s *jsonschema.Schema) bool { return matchesPattern(s.PatternProperties, name) }) {
			continue // an object without properties declares nothing to misspell
		}
		out = append(out, Problem{Position: at, Warning: true, Message: phrase.Quote(name) +
			" is required but not declared under properties (a typo?): an input must give it, yet nothing says what it is" +
			declareIt(name, names)})
	}
	return out
}

// declareIt ends a message on a required name that properties leave
// out: the declared name it is nearest to, if any, and the fix.
func declareIt(name string, declared []string) string {
	fix := "declare " + phrase.Quote(name) + " under properties, or remove it from required"
	if near := phrase.Closest(name, declared); near != "" {
		return "; did you mean " + phrase.Quote(near) + "? Else " + fix
	}
	return "; " + fix
}

// isFalse says whether sch is the schema false, which allows nothing.
func isFalse(sch *jsonschema.Schema) bool { return sch.Always != nil && !*sch.Always }
