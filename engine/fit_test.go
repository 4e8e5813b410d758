package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// words counts tokens as words: enough to test fitting, and exact.
type words struct{}

func (words) CountTokens(s string) int { return len(strings.Fields(s)) }

func logFS(budget string) fstest.MapFS {
	return fstest.MapFS{
		"schemas/log.schema.json": {Data: []byte(`{
  "type": "object", "additionalProperties": false, "required": ["title"],
  "properties": {
    "title": {"type": "string", "description": "Title."},
    "memories": {"type": "array", "default": [], "description": "Memories.",
      "items": {"type": "object", "properties": {"text": {"type": "string"}, "updatedAt": {"type": "string"}, "pinned": {"type": "boolean", "default": false}}}},
    "notes": {"type": "string", "default": "", "description": "Free text."},
    "parent": {"type": "string", "default": "", "description": "Kept verbatim."}
  }
}`)},
		"templates/log/prompt.yaml": {Data: []byte(`sections: [head, memories, notes, tail]
verbatim:
  - {name: parent, field: /parent, start: "<<<", end: ">>>"}
checks:
  headings: ["# Log"]
budget:
` + budget)},
		"templates/log/head.md.tmpl": {Data: []byte("# Log\n\n{{ .title }}\n<<<\n{{ .parent }}\n>>>\n")},
		"templates/log/memories.md.tmpl": {Data: []byte("{{ range .memories }}- {{ .text }}\n{{ end }}" +
			"{{ with .budget.omitted.memories }}{{ . }} older memories are not shown.\n{{ end }}")},
		"templates/log/notes.md.tmpl": {Data: []byte("{{ .notes }}\n")},
		"templates/log/tail.md.tmpl":  {Data: []byte("Tail words that can go.\n")},
	}
}

const logBudget = `  - {section: tail, priority: 1}
  - {list: /memories, where: {pinned: false}, drop: oldest, by: updatedAt, keep: 2, priority: 10}
  - {list: /memories, name: pinned_memories, where: {pinned: true}, drop: oldest, by: updatedAt, priority: 20}
  - {text: /notes, keep: 3, priority: 5}
`

func logInput(memories int) []byte {
	var b strings.Builder
	b.WriteString(`{"title": "T", "parent": "# Parent\n\nword word", "notes": "` + strings.Repeat("note ", 40) + `", "memories": [`)
	for i := range memories {
		if i > 0 {
			b.WriteString(",")
		}
		// Listed newest first; one in ten is pinned.
		fmt.Fprintf(&b, `{"text": "memory %d", "updatedAt": "2026-01-01T%02d:%02d:00Z", "pinned": %v}`, i, 23-i/60, 59-i%60, i%10 == 0)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func TestFitTokens(t *testing.T) {
	t.Parallel()
	lib, err := Load(logFS(logBudget))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Name: "in", Data: logInput(100)}
	full, err := lib.Render(context.Background(), "log", in)
	if err != nil {
		t.Fatal(err)
	}
	fullTokens := words{}.CountTokens(full.Text)
	prevKept := -1
	for _, limit := range []int{60, 90, 150, 220, 300, fullTokens - 1, fullTokens} {
		res, err := lib.Render(context.Background(), "log", in, FitTokens(limit, words{}))
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		b := res.Budget
		if got := (words{}).CountTokens(res.Text); got > limit || got != b.Tokens || res.Tokens != got {
			t.Fatalf("limit %d: %d tokens (report %d)", limit, got, b.Tokens)
		}
		if !res.OK() || !strings.Contains(res.Text, "<<<\n# Parent\n\nword word\n>>>") {
			t.Errorf("limit %d: checks %v, or the verbatim region changed", limit, res.Checks)
		}
		kept := strings.Count(res.Text, "- memory")
		if kept < prevKept {
			t.Errorf("limit %d keeps %d memories, less than a smaller limit kept (%d)", limit, kept, prevKept)
		}
		prevKept = kept
		omitted := 0
		for _, c := range b.Cuts {
			if c.Kind == "list" {
				omitted += c.Items
			}
		}
		if kept+omitted != 100 {
			t.Errorf("limit %d: %d kept and %d reported omitted", limit, kept, omitted)
		}
		if omitted > 0 && !strings.Contains(res.Text, fmt.Sprintf("older memories are not shown")) {
			t.Errorf("limit %d: the template was not told what was cut", limit)
		}
		if b.StablePrefix < strings.Index(full.Text, "- memory") || !strings.HasPrefix(full.Text, res.Text[:b.StablePrefix]) {
			t.Errorf("limit %d: stable prefix %d", limit, b.StablePrefix)
		}
		// Renders stay within what a binary search over the cuts would take.
		if max := 4 + int(math.Ceil(math.Log2(float64(100+200)))) + len(b.Cuts); b.Renders > max {
			t.Errorf("limit %d: %d renders, more than %d", limit, b.Renders, max)
		}
		again, _ := lib.Render(context.Background(), "log", in, FitTokens(limit, words{}))
		if again.Text != res.Text {
			t.Errorf("limit %d: not deterministic", limit)
		}
	}
	// Cuts go in priority order: the tail first, then the notes, then
	// unpinned memories oldest first, pinned ones last.
	res, _ := lib.Render(context.Background(), "log", in, FitTokens(40, words{}))
	var order []string
	for _, c := range res.Budget.Cuts {
		order = append(order, c.Name)
	}
	if strings.Join(order, ",") != "tail,notes,memories,pinned_memories" {
		t.Errorf("cut order %v", order)
	}
	if !strings.Contains(res.Text, "\nnot…[truncated]\n") || strings.Contains(res.Text, "Tail words") {
		t.Errorf("text:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, "- memory 0\n") {
		t.Errorf("the newest memory went: %s", res.Text)
	}
	_, err = lib.Render(context.Background(), "log", in, FitTokens(10, words{}))
	var small *BudgetTooSmall
	if e := AsError(err); e == nil || e.Kind != KindInput || !errors.As(err, &small) || small.MaxTokens != 10 ||
		small.MinTokens <= 10 || small.FullTokens < small.MinTokens || !strings.Contains(e.Reason, fmt.Sprintf("needs at least %d tokens", small.MinTokens)) {
		t.Errorf("an impossible budget: %v (%+v)", err, small)
	}
}

func TestBudgetManifestErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"  - {list: /parent}\n":                          "verbatim field",
		"  - {section: head}\n":                          "required heading",
		"  - {section: nope}\n":                          "not one of the sections",
		"  - {list: /memories, drop: oldest}\n":          "needs by:",
		"  - {list: /memories, drop: sideways}\n":        "is not one of",
		"  - {text: /notes, where: {a: 1}}\n":            "list units only",
		"  - {list: /memorys}\n":                         "declares no field",
		"  - {list: /memories}\n  - {list: /memories}\n": "named \"memories\"",
		"  - {section: tail, list: /memories}\n":         "exactly one of",
		"  - {text: /notes, keep: -1}\n":                 "negative",
	}
	for budget, want := range cases {
		_, err := LoadStrict(logFS(budget))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "templates/log/prompt.yaml") {
			t.Errorf("%q: got %v, want %q", budget, err, want)
		}
	}
}

// TestBudgetTooSmallNamesTheSmallestPrompt: when the note a template
// writes of what a cut left out costs more than the cut saves, the prompt
// with every cut made is not the smallest: the error names the smallest a
// render reached, here the uncut prompt, and says the cuts do not help.
func TestBudgetTooSmallNamesTheSmallestPrompt(t *testing.T) {
	t.Parallel()
	lib, err := Load(fstest.MapFS{
		"schemas/tags.schema.json":   {Data: []byte(`{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."}}}`)},
		"templates/tags/prompt.yaml": {Data: []byte("sections: [body]\nbudget:\n  - {list: /tags, drop: last, priority: 1}\n")},
		"templates/tags/body.md.tmpl": {Data: []byte("{{ range .tags }}{{ . }} {{ end }}" +
			"{{ with .budget.omitted.tags }}(and {{ . }} more tags, left out to fit the token budget){{ end }}\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lib.Render(context.Background(), "tags", Input{Name: "in.json", Data: []byte(`{"tags": ["a", "b", "c"]}`)}, FitTokens(2, words{}))
	var small *BudgetTooSmall
	e := AsError(err)
	if e == nil || !errors.As(err, &small) || small.MinTokens != 3 || small.FullTokens != 3 ||
		!strings.Contains(e.Reason, "needs at least 3 tokens") || !strings.Contains(strings.Join(e.Hints, " "), "no smaller") {
		t.Errorf("a budget the cuts only make larger: %v (%+v)", err, small)
	}
}

// TestFitCountsEachProbeAlone: the text a render's functions build is
// bounded render by render; a fit, which renders the prompt once for each
// number of cuts it tries, is held to it for each, not for their sum.
func TestFitCountsEachProbeAlone(t *testing.T) {
	t.Parallel()
	lib, err := Load(fstest.MapFS{
		"schemas/tags.schema.json":   {Data: []byte(`{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."}}}`)},
		"templates/tags/prompt.yaml": {Data: []byte("sections: [head, body]\nbudget:\n  - {list: /tags, drop: last, priority: 1}\n")},
		// 3.2 MB of text built, of the 4 MiB a render may build.
		"templates/tags/head.md.tmpl": {Data: []byte(`{{ $s := repeat 400000 "w" | upper | lower }}{{ $t := repeat 400000 "w" | upper | lower }}{{ len $s }}` + "\n")},
		"templates/tags/body.md.tmpl": {Data: []byte("{{ range .tags }}{{ . }} {{ end }}\n")},
	}, WithLimits(Limits{OutputBytes: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Name: "in.json", Data: []byte(`{"tags": ["a", "b", "c", "d", "e", "f"]}`)}
	res, err := lib.Render(context.Background(), "tags", in, FitTokens(4, words{}))
	if err != nil || res.Budget == nil || len(res.Budget.Cuts) == 0 || res.Budget.Renders < 3 {
		t.Fatalf("a fit of several renders, each within the bound: %v (%+v)", err, res)
	}
}
