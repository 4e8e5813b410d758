package schema

import "github.com/santhosh-tekuri/jsonschema/v5"

// ListOf is the node of a list whose elements are what n describes: a
// list a template builds itself ({{ $l = append $l . }}), whose elements
// the schema knows though the list is in no input. A list of values the
// schema says nothing of is a node that says nothing either.
func ListOf(n Node) Node {
	if n.Open() {
		return Node{set: n.set}
	}
	items := n.alts[0]
	if len(n.alts) > 1 {
		items = &jsonschema.Schema{AnyOf: n.alts}
	}
	return Node{set: n.set, alts: []*jsonschema.Schema{{Types: []string{"array"}, Items2020: items}}}
}
