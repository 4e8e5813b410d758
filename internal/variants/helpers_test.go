package variants_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/fixture"
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
