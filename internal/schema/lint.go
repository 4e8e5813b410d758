package schema

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Problem is something wrong with a schema itself, found before any input
// is validated against it.
type Problem struct {
	Position string // file:line:col in the schema file
	Warning  bool   // a warning; else an error
	Message  string
}

// Lint checks the schema as an author wrote it: every default and every
// example is valid against the schema it stands in (a "default": 5 on a
// string field would render as "5"), and every property has a description,
// which error hints and the typed inputs show callers. Every name a
// required list names is one the object allows (else no input passes, and
// each example is blamed for it) and declares (else it is likely a typo).
func (sc *Schema) Lint() []Problem {
	var out []Problem
	objs := newObjects(sc.compiled)
	// Conditions (if, not) and the branches that restate what a condition
	// implies (then, else) constrain properties declared elsewhere: only
	// declarations need descriptions.
	conditional := map[*jsonschema.Schema]bool{}
	properties := func(s *jsonschema.Schema) []*jsonschema.Schema { return slices.Collect(maps.Values(s.Properties)) }
	visitOnce(sc.compiled, map[*jsonschema.Schema]bool{}, subschemas, func(s *jsonschema.Schema) {
		for _, c := range []*jsonschema.Schema{s.If, s.Then, s.Else, s.Not} {
			visitOnce(c, conditional, properties, func(*jsonschema.Schema) {}) // conditional gets c and what it declares
		}
		raw := sc.set.rawNode(s)
		if d, ok := raw["default"]; ok {
			if err := s.Validate(d); err != nil {
				out = append(out, Problem{Position: sc.set.position(s, "default"),
					Message: "the default is not valid here: " + firstCause(err)})
			}
		}
		if exs, ok := raw["examples"].([]any); ok {
			for _, e := range exs {
				if err := s.Validate(e); err != nil {
					out = append(out, Problem{Position: sc.set.position(s, "examples"),
						Message: "an example is not valid here: " + firstCause(err)})
				}
			}
		}
		if v, ok := raw[AllowBidiKeyword]; ok {
			if _, isBool := v.(bool); !isBool {
				out = append(out, Problem{Position: sc.set.position(s, AllowBidiKeyword),
					Message: AllowBidiKeyword + " must be true or false: anything else allows nothing"})
			}
		}
		out = append(out, sc.requiredProblems(s, objs)...)
		for _, name := range sc.set.propertyNames(s) {
			if p := s.Properties[name]; description(p) == "" && p.Always == nil && !conditional[s] {
				out = append(out, Problem{Position: sc.set.position(p, ""), Warning: true,
					Message: "property " + name + " has no description: callers see it in error hints and typed inputs; add one"})
			}
		}
	})
	slices.SortStableFunc(out, func(a, b Problem) int { return problem.ComparePositions(a.Position, b.Position) })
	return out
}

// position is where a keyword of a compiled schema is written.
func (s *Set) position(sch *jsonschema.Schema, keyword string) string {
	url, frag, _ := strings.Cut(sch.Location, "#")
	if keyword != "" {
		frag += "/" + keyword
	}
	if doc, _ := s.document(url); doc != nil {
		if p := doc.Position(frag); p != "" {
			return p
		}
	}
	return "schemas/" + strings.TrimPrefix(url, baseURL)
}

func firstCause(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		for len(ve.Causes) > 0 {
			ve = ve.Causes[0]
		}
		at := ve.InstanceLocation
		if at != "" {
			at += ": "
		}
		return at + ve.Message
	}
	return err.Error()
}
