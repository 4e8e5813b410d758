package schema_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/promptsmith/promptsmith/internal/schema"
)

// TestTypes: a node's types, enum, maxItems and words, through $ref, allOf,
// anyOf and a nullable union; unknown where any schema that may apply
// there does not say its type.
func TestTypes(t *testing.T) {
	set, err := schema.Load(fstest.MapFS{"schemas/t.schema.json": {Data: []byte(`{
  "type": "object",
  "$defs": {"mode": {"type": "string", "enum": ["fast", "slow"]}, "sku": {"type": "object", "properties": {"id": {"type": "string"}, "qty": {"type": "integer"}}}},
  "properties": {
    "count": {"type": "integer"},
    "price": {"type": "number"},
    "maybe": {"type": ["string", "null"]},
    "mode": {"$ref": "#/$defs/mode"},
    "level": {"enum": [1, 2, 3]},
    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "loose": {"anyOf": [{"type": "string"}, {}]},
    "narrowed": {"allOf": [{"type": ["string", "integer"]}, {"type": "string"}]},
    "skus": {"type": "array", "maxItems": 3, "items": {"$ref": "#/$defs/sku"}},
    "tags": {"type": "array", "items": {"type": "string"}},
    "free": {}
  }
}`)}}, "lib")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := set.Get("t")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		field string
		types []string
		words string
		max   int
	}{
		{"count", []string{"integer"}, "integer", -1},
		{"price", []string{"integer", "number"}, "number", -1},
		{"maybe", []string{"null", "string"}, "string or null", -1},
		{"mode", []string{"string"}, `string (one of "fast", "slow")`, -1},
		{"level", []string{"integer", "number"}, "number (one of 1, 2, 3)", -1},
		{"either", []string{"integer", "string"}, "integer or string", -1},
		{"loose", nil, "", -1},
		{"narrowed", []string{"string"}, "string", -1},
		{"skus", []string{"array"}, "list of objects", 3},
		{"tags", []string{"array"}, "list of strings", -1},
		{"free", nil, "", -1},
	}
	for _, c := range cases {
		n, _ := sc.Root().Field(c.field)
		if got := n.Types(); !slices.Equal(got, c.types) || n.Words() != c.words || n.MaxItems() != c.max {
			t.Errorf("%s: types %v, words %q, maxItems %d; want %v, %q, %d", c.field, got, n.Words(), n.MaxItems(), c.types, c.words, c.max)
		}
	}
	skus, _ := sc.Root().Field("skus")
	if w := skus.Elem().Words(); w != "object with fields id, qty" {
		t.Errorf("an item of skus: %q", w)
	}
}
