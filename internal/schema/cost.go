package schema

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxCost bounds the validation work a schema may cause along one path
// into a value: how many times its subschemas may be checked against a
// value and the values inside it, one at each level. The validator takes
// no context, so a schema whose allOf over $refs doubles at each level
// (2²⁶ subschemas in 26 levels), or a recursive one that refers to itself
// twice for each level of the input, would run past any deadline; it is
// refused when it compiles instead. The library's own schemas cost under
// a hundred.
const maxCost = 100_000

// costLevels is how many levels into a value the cost is counted: the
// default limit on an input's nesting (Limits.Depth).
const costLevels = 128

// costGraph is a compiled schema's subschemas and how they apply: to the
// same value (allOf, anyOf, oneOf, not, if, then, else, $ref, ...) or to a
// value inside it (properties by name, the rest as "*").
type costGraph struct {
	index map[*jsonschema.Schema]int
	nodes []*jsonschema.Schema
	same  [][]int            // by node: the subschemas checked against the same value, once per edge
	down  []map[string][]int // by node: the subschemas checked against a value inside, by property name or "*"
	order []int              // the nodes, each before those it applies to the same value (a $ref back is left out)
}

func (g *costGraph) add(s *jsonschema.Schema) int {
	if i, ok := g.index[s]; ok {
		return i
	}
	i := len(g.nodes)
	g.index[s] = i
	g.nodes = append(g.nodes, s)
	g.same = append(g.same, nil)
	g.down = append(g.down, nil)
	same := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else}
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		same = append(same, l...)
	}
	for _, x := range s.DependentSchemas {
		same = append(same, x)
	}
	for _, x := range s.Dependencies {
		if x, ok := x.(*jsonschema.Schema); ok {
			same = append(same, x)
		}
	}
	var anyKey []*jsonschema.Schema // applies to a property of any name
	for _, x := range s.PatternProperties {
		anyKey = append(anyKey, x)
	}
	anyKey = append(anyKey, s.UnevaluatedProperties)
	down := map[string][]*jsonschema.Schema{}
	for name, x := range s.Properties {
		down[name] = append([]*jsonschema.Schema{x}, anyKey...)
	}
	star := append([]*jsonschema.Schema{}, anyKey...)
	star = append(star, s.PropertyNames, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema)
	star = append(star, s.PrefixItems...)
	for _, x := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
		switch x := x.(type) {
		case *jsonschema.Schema:
			star = append(star, x)
		case []*jsonschema.Schema:
			star = append(star, x...)
		}
	}
	down["*"] = star
	for _, x := range same {
		if x != nil {
			j := g.add(x)
			g.same[i] = append(g.same[i], j)
		}
	}
	g.down[i] = map[string][]int{}
	for k, l := range down {
		for _, x := range l {
			if x != nil {
				j := g.add(x)
				g.down[i][k] = append(g.down[i][k], j)
			}
		}
	}
	return i
}

// sort orders the nodes so that each comes before those it applies to the
// same value; an edge back to a node being visited (a $ref that would
// check the same value again without end, which the validator refuses)
// is dropped.
func (g *costGraph) sort() {
	state := make([]byte, len(g.nodes)) // 0 new, 1 visiting, 2 done
	var post []int
	var visit func(int)
	visit = func(i int) {
		state[i] = 1
		kept := g.same[i][:0]
		for _, j := range g.same[i] {
			if state[j] == 1 {
				continue
			}
			kept = append(kept, j)
			if state[j] == 0 {
				visit(j)
			}
		}
		g.same[i] = kept
		state[i] = 2
		post = append(post, i)
	}
	for i := range g.nodes {
		if state[i] == 0 {
			visit(i)
		}
	}
	for i := len(post) - 1; i >= 0; i-- {
		g.order = append(g.order, post[i])
	}
}

// spread adds to counts what the subschemas applied to the same value
// check: counts[i] is how many times node i is checked against it.
func (g *costGraph) spread(counts []float64) {
	for _, i := range g.order {
		if counts[i] == 0 {
			continue
		}
		for _, j := range g.same[i] {
			counts[j] += counts[i]
		}
	}
}

// cost counts, level by level into a value, how many checks one value at
// that level can cause (at most what any one path leads to: each
// subschema as often as the property name or item that leads to it most
// often), and returns their sum once it passes maxCost, with the
// subschema checked most often at the level where it did; nil when it
// never does.
func (g *costGraph) cost() (float64, *jsonschema.Schema) {
	counts := make([]float64, len(g.nodes))
	counts[0] = 1
	g.spread(counts)
	total := 0.0
	for level := 0; level < costLevels; level++ {
		levelTotal := 0.0
		most := 0
		for i, c := range counts {
			levelTotal += c
			if c > counts[most] {
				most = i
			}
		}
		if levelTotal == 0 {
			break
		}
		if total += levelTotal; total > maxCost {
			return total, g.nodes[most]
		}
		byKey := map[string][]float64{}
		for i, c := range counts {
			if c == 0 {
				continue
			}
			for k, l := range g.down[i] {
				v := byKey[k]
				if v == nil {
					v = make([]float64, len(g.nodes))
					byKey[k] = v
				}
				for _, j := range l {
					v[j] += c
				}
			}
		}
		next := make([]float64, len(g.nodes))
		for _, v := range byKey {
			g.spread(v)
			for j, c := range v {
				next[j] = max(next[j], c)
			}
		}
		counts = next
	}
	return total, nil
}

// costCheck is a compiled schema's cost, and the subschema where it
// passes maxCost (nil when it does not).
type costCheck struct {
	total float64
	over  *jsonschema.Schema
}

// measureCost works out how many checks a compiled schema could cause
// along one path into a value. It needs only the compiled schema, so it
// runs while the schema's document is still being decoded; costError,
// which names the position, needs the document too.
func measureCost(compiled *jsonschema.Schema) costCheck {
	g := &costGraph{index: map[*jsonschema.Schema]int{}}
	g.add(compiled)
	g.sort()
	total, over := g.cost()
	return costCheck{total, over}
}

// costError refuses a schema that could cause more than maxCost checks,
// naming the subschema checked most often where the work passes the bound.
func (s *Set) costError(c costCheck) error {
	if c.over == nil {
		return nil
	}
	_, frag, _ := strings.Cut(c.over.Location, "#")
	return (&problem.Error{Kind: problem.KindTemplate, Position: s.position(c.over, ""), Field: frag,
		Reason: fmt.Sprintf("validating a value against this schema could take %.3g checks, more than the %d allowed: its allOf, anyOf, oneOf and $ref multiply each other, or refer back to a schema more than once for each level of the value",
			c.total, maxCost)}).
		Hint("refer to a definition once where it is needed, rather than through several allOf or $ref that each repeat it")
}
