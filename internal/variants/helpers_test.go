package variants_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// renderInput renders in, as JSON, with the embedded library's variant.
func renderInput(t *testing.T, variant string, in map[string]any) (*engine.Result, error) {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Library(t).Render(context.Background(), variant, engine.Input{Name: "input.json", Data: data})
}

// eachPinned runs check, in a parallel subtest, on each example the
// variant's manifest pins to the seed document: the seed tests hold those
// examples and no other. It fails t when the manifest pins fewer than
// atLeast to that document.
func eachPinned(t *testing.T, variant, document string, atLeast int, check func(t *testing.T, v *engine.Variant, example string, in engine.Input)) {
	t.Helper()
	v := fixture.Variant(t, variant)
	seed := v.Manifest().Seed
	if seed == nil || seed.Document != document || len(seed.Pinned) < atLeast {
		t.Fatalf("templates/%s/prompt.yaml pins fewer than %d examples to %s (seed: %+v); the seed test holds those and no other", variant, atLeast, document, seed)
	}
	for _, ex := range seed.Pinned {
		t.Run(ex, func(t *testing.T) {
			t.Parallel()
			in, err := v.Example(ex)
			if err != nil {
				t.Fatal(err)
			}
			check(t, v, ex, in)
		})
	}
}

// refusal is a change that makes a valid input invalid, and the input
// error the variant must refuse it with: at field, its reason holding
// reason.
type refusal struct {
	name   string
	change func(map[string]any)
	field  string
	reason string
}

// testRefusals renders with variant, for each case, the input valid returns
// with the case's change: each must be refused with the case's input error,
// without a prompt, and with a hint that says what to do (but for a value
// outside an enum, whose reason lists the values).
func testRefusals(t *testing.T, variant string, valid func() map[string]any, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := valid()
			c.change(in)
			res, err := renderInput(t, variant, in)
			if err == nil {
				t.Fatalf("rendered, want a refusal at %s:\n%.300s", c.field, res.Text)
			}
			e := engine.AsError(err)
			if e.Kind != engine.KindInput || e.Field != c.field || !strings.Contains(e.Reason, c.reason) {
				t.Fatalf("got %s error at %q: %q; want an input error at %q containing %q", e.Kind, e.Field, e.Reason, c.field, c.reason)
			}
			if len(e.Hints) == 0 && c.reason != "must be one of" {
				t.Errorf("no hint says what to do: %v", e)
			}
			if res != nil {
				t.Errorf("a refusal returned a prompt")
			}
		})
	}
}

// schemaDescription is the description of the schema node at ptr (a JSON
// pointer into the schema document, not the input) of variant's input
// schema: what error hints quote, so that a test holds the behaviour (the
// hint is the field's description), not the words.
func schemaDescription(t testing.TB, variant, ptr string) string {
	t.Helper()
	node, _ := schemaValue(t, variant, ptr).(map[string]any)
	d, _ := node["description"].(string)
	if d == "" {
		t.Fatalf("%s schema: no description at %s", variant, ptr)
	}
	return d
}

// schemaValue is the value at ptr (a JSON pointer into the schema
// document) of variant's input schema.
func schemaValue(t testing.TB, variant, ptr string) any {
	t.Helper()
	var node any
	if err := json.Unmarshal(fixture.Variant(t, variant).SchemaJSON(), &node); err != nil {
		t.Fatal(err)
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := node.(map[string]any)
		if !ok {
			t.Fatalf("%s schema: no %s", variant, ptr)
		}
		node = m[tok]
	}
	return node
}
