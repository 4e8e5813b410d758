package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/lint"
)

// deskFS is a library of one variant whose sections read, in order: the
// agent's name, its tools (through a partial), the time, the trigger and
// notes. The time and the trigger change between requests.
func deskFS(cache string) fstest.MapFS {
	return fstest.MapFS{
		"schemas/desk.schema.json": {Data: []byte(`{
  "type": "object", "required": ["name", "now", "trigger"], "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "description": "Agent."},
    "tools": {"type": "array", "default": [], "description": "Tools.",
      "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "description": "N."}}}},
    "now": {"type": "string", "format": "date-time", "description": "Clock."},
    "trigger": {"type": "object", "required": ["kind", "text"], "description": "Why.",
      "properties": {"kind": {"enum": ["chat", "timer"], "description": "K."}, "text": {"type": "string", "description": "T."}}},
    "notes": {"type": "array", "items": {"type": "string"}, "default": [], "description": "Notes."}
  }
}`)},
		"templates/desk/prompt.yaml": {Data: []byte("sections: [intro, tools, clock, task, notes]\n" +
			"budget:\n  - {list: /notes, drop: last, priority: 1}\n  - {list: /tools, drop: last, priority: 2}\n" + cache)},
		"templates/desk/intro.md.tmpl": {Data: []byte("Agent {{ .name }}, at your desk.\n")},
		"templates/desk/tools.md.tmpl": {Data: []byte("Tools:\n{{ range .tools }}{{ template \"_tool.tmpl\" . }}{{ end }}")},
		"templates/desk/_tool.tmpl":    {Data: []byte("- {{ .name }} is a tool you may call whenever it helps\n")},
		"templates/desk/clock.md.tmpl": {Data: []byte("It is {{ .now }}.\n")},
		"templates/desk/task.md.tmpl":  {Data: []byte("{{ .trigger.kind }}: {{ .trigger.text }}\n")},
		"templates/desk/notes.md.tmpl": {Data: []byte("{{ range .notes }}* {{ . }}\n{{ end }}")},
	}
}

const deskCache = "cache:\n  volatile: [/now, /trigger]\n  breakpoints:\n    - intro\n    - tools\n"

const deskInput = `{"name": "Ada", "tools": [{"name": "search"}, {"name": "edit"}], "now": "2026-01-02T10:00:00Z",
 "trigger": {"kind": "chat", "text": "hi"}, "notes": ["one note here", "two notes here", "three notes here"]}`

func loadDesk(t *testing.T, cache string) *engine.Variant {
	t.Helper()
	lib, err := engine.Load(deskFS(cache))
	if err != nil {
		t.Fatal(err)
	}
	v, err := lib.Variant("desk")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCacheReport: the prefix ends at the first section whose template
// reads a volatile field, at that read; sections after it that read
// nothing volatile are said to be stranded by the order.
func TestCacheReport(t *testing.T) {
	t.Parallel()
	rep := loadDesk(t, deskCache).CacheReport()
	if !rep.Declared || strings.Join(rep.Stable, ",") != "intro,tools" || rep.First == nil ||
		rep.First.Section != "clock" || rep.First.Field != "/now" || rep.First.Position != "templates/desk/clock.md.tmpl:1:10" ||
		strings.Join(rep.Stranded, ",") != "notes" || len(rep.Reads) != 2 || rep.Reads[1].Section != "task" {
		t.Fatalf("report = %+v", rep)
	}
	if info := rep.Info(); !strings.Contains(info, "ends before section clock") || !strings.Contains(info, "notes read nothing volatile") ||
		!strings.Contains(info, "the sections that read a volatile field: clock (/now at templates/desk/clock.md.tmpl:1:10), task (/trigger at templates/desk/task.md.tmpl:1:4)") {
		t.Errorf("info = %s", info)
	}
	none := loadDesk(t, "").CacheReport()
	if none.Declared || len(none.Stable) != 5 || !strings.Contains(none.Info(), "declares no cache:") || none.Position != "templates/desk/prompt.yaml" {
		t.Errorf("without cache: %+v %s", none, none.Info())
	}
	for _, f := range loadDesk(t, deskCache).Lint() {
		if f.Severity == lint.Error {
			t.Errorf("a valid cache: gives %s", f)
		}
		if f.Severity == lint.Warning && (f.Position != "templates/desk/prompt.yaml:4" || !strings.Contains(f.Message, "budget unit tools cuts the prompt before its last cache breakpoint")) {
			t.Errorf("warning: %s", f)
		}
	}
}

// TestCacheBreakpointAfterVolatileRead: a breakpoint whose prefix reads a
// volatile field is a lint error at the template line of the read.
func TestCacheBreakpointAfterVolatileRead(t *testing.T) {
	t.Parallel()
	v := loadDesk(t, "cache:\n  volatile: [/trigger/text]\n  breakpoints: [tools, task]\n")
	var errs []string
	for _, f := range v.Lint() {
		if f.Severity == lint.Error {
			errs = append(errs, f.String())
		}
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "templates/desk/task.md.tmpl:1:25: error: section task reads /trigger/text, which cache.volatile lists") ||
		!strings.Contains(errs[0], "breakpoint after task (templates/desk/prompt.yaml:7)") {
		t.Errorf("errors = %q", errs)
	}
}

// TestCacheVolatileNotInSchema: a volatile pointer the schema does not
// declare is refused at its line, with the field meant.
func TestCacheVolatileNotInSchema(t *testing.T) {
	t.Parallel()
	_, err := engine.Load(deskFS("cache:\n  volatile:\n    - /nwo\n"), engine.Strict())
	e := engine.AsError(err)
	if e == nil || e.Position != "templates/desk/prompt.yaml:7" || !strings.Contains(e.Reason, "/nwo is not in the input schema") ||
		!strings.Contains(strings.Join(e.Hints, " "), `did you mean "/now"?`) {
		t.Fatalf("err = %v", err)
	}
}

type words struct{}

func (words) CountTokens(s string) int { return len(strings.Fields(s)) }

// TestCacheBlocks: breakpoints are placed after their sections; the
// provider shapes split there, their texts joined are the prompt, and
// the cache key follows the prefix, not what comes after it.
func TestCacheBlocks(t *testing.T) {
	t.Parallel()
	v := loadDesk(t, deskCache)
	render := func(in string) *engine.Result {
		res, err := v.Render(context.Background(), engine.Input{Name: "in.json", Data: []byte(in)}, engine.CountTokens(words{}))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := render(deskInput)
	if len(res.Breakpoints) != 2 || res.Breakpoints[0].End != res.Sections[0].End || res.Breakpoints[1].End != res.Sections[1].End ||
		res.Breakpoints[1].Tokens != (words{}).CountTokens(res.Text[:res.Sections[1].End]) {
		t.Fatalf("breakpoints %+v, sections %+v", res.Breakpoints, res.Sections)
	}
	a := res.Anthropic()
	var joined string
	for _, b := range a.System {
		joined += b.Text
	}
	if joined != res.Text || len(a.System) != 3 || a.System[0].CacheControl == nil || a.System[1].CacheControl == nil || a.System[2].CacheControl != nil {
		t.Fatalf("anthropic = %+v", a)
	}
	data, _ := json.Marshal(a)
	if !strings.Contains(string(data), `"cache_control":{"type":"ephemeral"}`) || strings.Count(string(data), "cache_control") != 2 {
		t.Errorf("json = %s", data)
	}
	o := res.OpenAI()
	if o.Messages[0].Role != "system" || o.Messages[0].Content != res.Text || !strings.HasPrefix(o.PromptCacheKey, "ps-") {
		t.Errorf("openai = %+v", o)
	}
	later := render(strings.Replace(deskInput, "10:00", "11:00", 1))
	if later.OpenAI().PromptCacheKey != o.PromptCacheKey {
		t.Error("the key changed with a field after the last breakpoint")
	}
	if render(strings.Replace(deskInput, "edit", "view", 1)).OpenAI().PromptCacheKey == o.PromptCacheKey {
		t.Error("the key did not change with the prefix")
	}
	// No tools: the breakpoint after tools falls where intro ends, one block.
	bare := render(strings.Replace(deskInput, `[{"name": "search"}, {"name": "edit"}]`, "[]", 1))
	if blocks := bare.CacheBlocks(); len(blocks) != 3 || blocks[0].Breakpoint != "intro" {
		// tools writes its heading alone: it is kept, so three blocks.
		t.Errorf("blocks = %+v", blocks)
	}
}

// TestCacheFitKeepsPrefix: a fit never cuts what comes before the last
// breakpoint (the tools here), and says how many tokens that prefix is.
func TestCacheFitKeepsPrefix(t *testing.T) {
	t.Parallel()
	v := loadDesk(t, deskCache)
	in := engine.Input{Name: "in.json", Data: []byte(deskInput)}
	full, _ := v.Render(context.Background(), in, engine.CountTokens(words{}))
	res, err := v.Render(context.Background(), in, engine.FitTokens(full.Tokens-8, words{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, full.CachePrefix()) || res.Budget.PrefixTokens != full.Breakpoints[1].Tokens {
		t.Errorf("fit cut the prefix: %q, report %+v", res.Text, res.Budget)
	}
	for _, c := range res.Budget.Cuts {
		if c.Name == "tools" {
			t.Errorf("tools were cut: %+v", c)
		}
	}
	if _, err := v.Render(context.Background(), in, engine.FitTokens(full.Breakpoints[1].Tokens, words{})); err == nil {
		t.Error("a budget below the prefix fitted")
	}
}

// TestProveCache: each volatile field is changed to another value its
// schema allows (a time shifted, another enum value with the text
// changed) and each breakpoint's prefix compared; a breakpoint after a
// section that prints the time fails at the byte where the time starts.
func TestProveCache(t *testing.T) {
	in := engine.Input{Name: "in.json", Data: []byte(deskInput)}
	_, proofs, err := loadDesk(t, deskCache).ProveCache(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs) != 2 || !proofs[0].OK() || !proofs[1].OK() || proofs[0].Value != `"2026-01-02T11:30:00Z"` ||
		!strings.Contains(proofs[1].Value, `"kind":"timer"`) || len(proofs[1].Breakpoints) != 2 {
		t.Fatalf("proofs = %+v", proofs)
	}
	bad := loadDesk(t, "cache:\n  volatile: [/now, /notes]\n  breakpoints: [tools, clock]\n")
	res, proofs, err := bad.ProveCache(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	clock := strings.Index(res.Text, "It is ") + len("It is 2026-01-02T1")
	if proofs[0].OK() || proofs[0].Breakpoints[0].Differs != -1 || proofs[0].Breakpoints[1].Section != "clock" ||
		proofs[0].Breakpoints[1].Differs != clock || proofs[0].Breakpoints[1].Was != "0:00:00Z.\n" {
		t.Errorf("proof of /now = %+v (time at %d)", proofs[0], clock)
	}
	if !proofs[1].OK() || proofs[1].Value == "" {
		t.Errorf("proof of /notes = %+v", proofs[1])
	}
	// A field the input leaves out is said to be skipped.
	_, proofs, _ = loadDesk(t, "cache:\n  volatile: [/tools/*/name]\n  breakpoints: [intro]\n").ProveCache(context.Background(),
		engine.Input{Name: "in.json", Data: []byte(strings.Replace(deskInput, `[{"name": "search"}, {"name": "edit"}]`, "[]", 1))})
	if len(proofs) != 1 || proofs[0].Skipped == "" {
		t.Errorf("proofs = %+v", proofs)
	}
}

// TestCacheBudgetCountPinsItsUnitAlone: a section before the last
// breakpoint that says how many of one unit's items a fit left out pins
// that unit, not every unit of the budget: notes, after the breakpoint,
// are still cut, and lint warns of tools alone.
func TestCacheBudgetCountPinsItsUnitAlone(t *testing.T) {
	t.Parallel()
	fsys := deskFS(deskCache)
	fsys["templates/desk/tools.md.tmpl"] = &fstest.MapFile{Data: []byte("Tools:\n{{ range .tools }}{{ template \"_tool.tmpl\" . }}{{ end }}" +
		"{{ with $.budget.omitted.tools }}({{ . }} more){{ end }}")}
	fsys["templates/desk/notes.md.tmpl"] = &fstest.MapFile{Data: []byte("{{ range .notes }}* {{ . }}\n{{ end }}" +
		"{{ with $.budget.omitted.notes }}({{ . }} more){{ end }}")}
	lib, err := engine.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	v, err := lib.Variant("desk")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range v.Lint() {
		if f.Severity == lint.Warning && strings.Contains(f.Message, "budget unit notes") {
			t.Errorf("notes pinned: %s", f)
		}
	}
	in := engine.Input{Name: "in.json", Data: []byte(deskInput)}
	full, _ := v.Render(context.Background(), in, engine.CountTokens(words{}))
	res, err := v.Render(context.Background(), in, engine.FitTokens(full.Tokens-4, words{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Budget.Cuts) == 0 || res.Budget.Cuts[0].Name != "notes" {
		t.Errorf("cuts = %+v, want notes cut", res.Budget.Cuts)
	}
}

// TestCacheFitAllPinned: when every budget unit cuts before the last
// breakpoint, a fit that does not fit says so, naming the units the
// breakpoint holds, not that the budget has nothing.
func TestCacheFitAllPinned(t *testing.T) {
	t.Parallel()
	v := loadDesk(t, "cache:\n  breakpoints: [notes]\n")
	in := engine.Input{Name: "in.json", Data: []byte(deskInput)}
	full, _ := v.Render(context.Background(), in, engine.CountTokens(words{}))
	_, err := v.Render(context.Background(), in, engine.FitTokens(full.Tokens-4, words{}))
	var e *engine.Error
	if !errors.As(err, &e) || !strings.Contains(strings.Join(e.Hints, "\n"), "its budget units notes, tools cut before its last cache breakpoint") {
		t.Fatalf("err = %v (%+v)", err, e)
	}
}
