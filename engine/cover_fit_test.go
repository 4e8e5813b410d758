package engine

import (
	"context"
	"testing"
	"testing/fstest"
)

// TestCoverageOfAFit holds that a render fitted to a budget records the
// branches of the prompt it returns, not those of the renders its fit only
// tried: when the budget cuts every item, the note written beside the
// items that are left ("N more") was in a tried prompt but is in no golden
// file, so it stays uncovered, and the note written in their place counts.
func TestCoverageOfAFit(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"schemas/cut.schema.json": {Data: []byte(`{
  "type": "object", "additionalProperties": false,
  "properties": {"items": {"type": "array", "default": [], "items": {"type": "string"}, "description": "I."}}
}`)},
		"templates/cut/prompt.yaml": {Data: []byte("sections: [main]\nbudget:\n  - {list: /items, drop: last, priority: 1}\n")},
		"templates/cut/main.md.tmpl": {Data: []byte("# Cut\n" +
			"{{ with .items }}{{ range . }}- {{ . }}\n{{ end }}" +
			"{{ with $.budget.omitted.items }}{{ . }} more left out\n{{ end }}" +
			"{{ else with $.budget.omitted.items }}{{ . }} left out\n{{ end }}")},
	}
	lib, err := LoadStrict(fsys)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := lib.Variant("cut")
	in := Input{Name: "in.yaml", Data: []byte("items: [a b c d e, f g h i j, k l m n o]\n")}
	// The notes' bodies, in the order they are written: beside the items,
	// then in their place.
	var notes []int
	for _, b := range v.Branches() {
		if b.Kind == BranchWith && b.Condition == "with $.budget.omitted.items" {
			notes = append(notes, b.ID)
		}
	}
	if len(notes) != 2 {
		t.Fatalf("branches %v: want the bodies of two omitted notes", v.Branches())
	}
	more, instead := notes[0], notes[1]
	cases := []struct {
		name          string
		maxTokens     int
		want          string
		more, instead bool
	}{
		// Every cut tried: one item, two, then all three.
		{"every item cut", 5, "# Cut\n3 left out\n", false, true},
		{"one item cut", 18, "# Cut\n- a b c d e\n- f g h i j\n1 more left out\n", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cov := v.NewCoverage()
			res, err := v.Render(context.Background(), in, FitTokens(c.maxTokens, words{}), Cover(cov))
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != c.want {
				t.Fatalf("prompt %q, want %q", res.Text, c.want)
			}
			if res.Budget.Renders < 2 {
				t.Fatalf("the fit ran the templates %d times: nothing was only tried", res.Budget.Renders)
			}
			if got := cov.Taken(more); got != c.more {
				t.Errorf("the note beside the items kept: covered %v, want %v (uncovered: %v)", got, c.more, cov.Uncovered())
			}
			if got := cov.Taken(instead); got != c.instead {
				t.Errorf("the note in place of the items: covered %v, want %v (uncovered: %v)", got, c.instead, cov.Uncovered())
			}
			// The same coverage again, with a plain render in between: what one
			// fit tried does not leak into the next render's record.
			if _, err := v.Render(context.Background(), in, FitTokens(c.maxTokens, words{}), Cover(cov)); err != nil {
				t.Fatal(err)
			}
			if cov.Taken(more) != c.more || cov.Taken(instead) != c.instead {
				t.Errorf("a second fit changed the record: %v", cov.Uncovered())
			}
		})
	}
}
