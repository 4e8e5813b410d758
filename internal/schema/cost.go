package schema

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxCost bounds the validation work a schema may cause for one value:
// how many of its subschemas one value of an input can be checked
// against. The validator takes no context, so a schema whose allOf over
// $refs doubles at each level (2²⁶ subschemas in 26 levels) would run
// past any deadline; it is refused when it compiles instead. The
// library's own schemas cost under a hundred.
const maxCost = 100_000

// cost is the work validating one value against a schema can cause: the
// schema's subschemas, each counted as often as the applicators and $refs
// that lead to it (a $ref is its target's cost again). A $ref back to a
// schema being counted (a recursive schema, which descends into the
// value) counts once. It returns the first subschema, deepest first,
// whose cost passes maxCost, or nil.
type costs struct {
	memo    map[*jsonschema.Schema]float64
	onStack map[*jsonschema.Schema]bool
	over    *jsonschema.Schema
	cost    float64
}

func (c *costs) of(s *jsonschema.Schema) float64 {
	if s == nil {
		return 0
	}
	if v, ok := c.memo[s]; ok {
		return v
	}
	if c.onStack[s] {
		return 1
	}
	c.onStack[s] = true
	total := 1.0
	add := func(x *jsonschema.Schema) {
		if c.over == nil {
			total += c.of(x)
		}
	}
	addAny := func(x any) {
		switch x := x.(type) {
		case *jsonschema.Schema:
			add(x)
		case []*jsonschema.Schema:
			for _, y := range x {
				add(y)
			}
		}
	}
	add(s.Ref)
	add(s.RecursiveRef)
	add(s.DynamicRef)
	add(s.Not)
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		for _, x := range l {
			add(x)
		}
	}
	add(s.If)
	add(s.Then)
	add(s.Else)
	for _, x := range s.Properties {
		add(x)
	}
	add(s.PropertyNames)
	for _, x := range s.PatternProperties {
		add(x)
	}
	addAny(s.AdditionalProperties)
	for _, x := range s.Dependencies {
		addAny(x)
	}
	for _, x := range s.DependentSchemas {
		add(x)
	}
	add(s.UnevaluatedProperties)
	addAny(s.Items)
	addAny(s.AdditionalItems)
	add(s.Items2020)
	add(s.Contains)
	add(s.UnevaluatedItems)
	add(s.ContentSchema)
	delete(c.onStack, s)
	c.memo[s] = total
	if total > maxCost && c.over == nil {
		c.over, c.cost = s, total
	}
	return total
}

// checkCost refuses a compiled schema that could cause more than maxCost
// checks of one value, naming the subschema where the work multiplies.
func (s *Set) checkCost(compiled *jsonschema.Schema) error {
	c := &costs{memo: map[*jsonschema.Schema]float64{}, onStack: map[*jsonschema.Schema]bool{}}
	c.of(compiled)
	if c.over == nil {
		return nil
	}
	_, frag, _ := strings.Cut(c.over.Location, "#")
	return (&problem.Error{Kind: problem.KindTemplate, Position: s.position(c.over, ""), Field: frag,
		Reason: fmt.Sprintf("validating a value against this schema could take %.3g checks, more than the %d allowed: its allOf, anyOf, oneOf and $ref multiply each other",
			c.cost, maxCost)}).
		Hint("refer to a definition once where it is needed, rather than through several allOf or $ref that each repeat it")
}
