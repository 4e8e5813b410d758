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

// EntriesOf is the node of what entries gives for an object n describes:
// a list of {key, value} objects, key a string and value what the
// object's values are.
func EntriesOf(n Node) Node {
	if n.Open() {
		return Node{set: n.set}
	}
	value := &jsonschema.Schema{Description: "The entry's value."}
	if elem := n.Elem(); !elem.Open() {
		value.AnyOf = elem.alts
	}
	pair := &jsonschema.Schema{
		Types:    []string{"object"},
		Required: []string{"key", "value"},
		Properties: map[string]*jsonschema.Schema{
			"key":   {Types: []string{"string"}, Description: "The entry's key."},
			"value": value,
		},
	}
	return Node{set: n.set, alts: []*jsonschema.Schema{{Types: []string{"array"}, Items2020: pair}}}
}
