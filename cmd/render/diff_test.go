package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/goldentest"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
	"github.com/promptsmith/promptsmith/tokens"
)

// TestDiffGolden: render diff's Markdown and JSON, against a tag and the
// working copy with inputs of one's own, and between two tags, as golden
// files (go test -update rewrites them). The repository's commits are
// made at a fixed time, so their hashes are the same on every run.
func TestDiffGolden(t *testing.T) {
	t.Parallel()
	r := versioned(t)
	inputs := fixture.WriteFiles(t, map[string]string{
		"note/long.yaml":    "title: Groceries\nitems: [milk, eggs, bread]\n",
		"todo/dishes.json":  `{"task": "dishes"}`,
		"note/untitled.yml": "title: ''\n",
		"note/fenced.yaml":  "title: Code\nitems: ['```sh', make, '```']\n",
	})
	for _, c := range []struct {
		file string
		args []string
	}{
		{"v1-working-copy.md", []string{"diff", "v1", "--inputs", inputs}},
		{"v1-working-copy.json", []string{"diff", "v1", "--inputs", inputs, "--format", "json"}},
		{"v1-v2.md", []string{"diff", "v1", "v2", "--encoding", "cl100k_base"}},
	} {
		got := runCLI(t, "", append([]string{"--templates", r.Dir}, c.args...)...)
		if got.code != 0 || got.stderr != "" {
			t.Fatalf("render %v: exit %d\n%s", c.args, got.code, got.stderr)
		}
		goldentest.Check(t, filepath.Join("testdata", "diff", c.file), []byte(got.stdout))
	}
}

// TestDiffNoChange: a change that alters no prompt (a README, or nothing)
// says so in one line, in Markdown; JSON says it with no prompts.
func TestDiffNoChange(t *testing.T) {
	t.Parallel()
	r := testrepo.New(t)
	r.CommitFiles("Add the library", testrepo.NoteLibrary())
	r.Git("tag", "v1")
	r.CommitFiles("Explain", map[string]string{"README.md": "How to write a note.\n"})
	r.Git("branch", "-M", "main")
	for _, args := range [][]string{{"diff", "v1"}, {"diff", "v1", "HEAD"}, {"diff", "HEAD~1", "main"}} {
		got := runCLI(t, "", append([]string{"--templates", r.Dir}, args...)...)
		lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
		if got.code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "No prompt changed between `v1` (") && !strings.HasPrefix(lines[0], "No prompt changed between `HEAD~1` (") ||
			!strings.HasSuffix(lines[0], " (3 prompts compared).") {
			t.Errorf("render %v: exit %d\n%s%s", args, got.code, got.stdout, got.stderr)
		}
	}
	got := runCLI(t, "", "--templates", r.Dir, "diff", "v1", "--format", "json")
	var report struct {
		Compared, Changed int
		Prompts           []any
	}
	if err := json.Unmarshal([]byte(got.stdout), &report); err != nil || report.Compared != 3 || report.Changed != 0 || report.Prompts == nil || len(report.Prompts) != 0 {
		t.Errorf("JSON: %v %+v\n%s", err, report, got.stdout)
	}
}

// TestDiffErrors: a prompt that no longer renders names the side and the
// input; inputs of a variant neither side has, --ref, and an unknown
// encoding are refused.
func TestDiffErrors(t *testing.T) {
	t.Parallel()
	r := versioned(t)
	inputs := fixture.WriteFiles(t, map[string]string{"ghost/a.yaml": "x: 1\n"})
	bad := fixture.WriteFiles(t, map[string]string{"note/wrong.yaml": "titel: typo\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "v1", "--inputs", inputs}, `inputs for "ghost", a variant neither v1 nor the working copy has`},
		{[]string{"diff", "v1", "--inputs", bad}, "note/wrong does not render at v1"},
		{[]string{"diff", "v1", "--ref", "v2"}, "render diff takes its refs as arguments"},
		{[]string{"diff", "v1", "--encoding", "nope"}, `unknown token encoding "nope"`},
		{[]string{"diff", "v0"}, `unknown ref "v0"`},
	} {
		got := runCLI(t, "", append([]string{"--templates", r.Dir}, c.args...)...)
		if got.code != 2 || !strings.Contains(got.stderr, c.want) || got.stdout != "" {
			t.Errorf("render %v: exit %d, want 2 and %q\n%s%s", c.args, got.code, c.want, got.stdout, got.stderr)
		}
	}
}

// TestDiffFittedAndRepeated: render diff compares the prompts fitted to a
// token budget (budget_examples) as render test does, names the library's
// files the change touches, and shows a hunk that several prompts share
// once, with the prompts it is in.
func TestDiffFittedAndRepeated(t *testing.T) {
	t.Parallel()
	r := testrepo.New(t)
	lib := testrepo.NoteLibrary()
	lib["templates/note/prompt.yaml"] += "budget:\n  - {list: /items, drop: last, keep: 0, priority: 10}\nbudget_examples:\n  - {example: basic, max_tokens: 1000}\n"
	lib["templates/note/head.md.tmpl"] = "An opening line.\n\nA second paragraph.\n\nA third one.\n\n# Note\n\n{{ .title }}\n"
	r.CommitFiles("Add the library", lib)
	r.Git("tag", "v1")
	r.Write("templates/note/head.md.tmpl", "An opening line, reworded.\n\nA second paragraph.\n\nA third one.\n\n# Note\n\n{{ .title }}\n")
	got := runCLI(t, "", "--templates", r.Dir, "diff", "v1")
	if got.code != 0 {
		t.Fatalf("render diff v1: exit %d\n%s", got.code, got.stderr)
	}
	for _, want := range []string{
		"3 of 4 prompts changed",
		"The change touches 1 file: `templates/note/head.md.tmpl`.\n",
		"| `note/basic.1000-tokens` | changed |",
		"In 3 prompts: `note/bare`, `note/basic`, `note/basic.1000-tokens`\n",
		"#### `note/basic.1000-tokens`: changed, +4 tokens\n",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("render diff v1 does not say %q:\n%s", want, got.stdout)
		}
	}
	if n := strings.Count(got.stdout, "+An opening line, reworded."); n != 1 {
		t.Errorf("the change shared by three prompts is shown %d times, want once:\n%s", n, got.stdout)
	}
}

// TestDiffCacheBreak: a change before a cache breakpoint is reported with
// the section and the token where the cached prefix breaks, and the tokens
// that move from cached to uncached are summed; a change after the last
// breakpoint breaks nothing.
func TestDiffCacheBreak(t *testing.T) {
	t.Parallel()
	r := testrepo.New(t)
	lib := testrepo.NoteLibrary()
	lib["templates/note/prompt.yaml"] = "description: A note\nsections: [head, items]\ncheck" +
		"s:\n  headings: [\"# Note\"]\ncache:\n  volatile: [/items]\n  breakpoints: [head]\n"
	r.CommitFiles("Add the library", lib)
	r.Git("tag", "v1")
	r.CommitFiles("Reword the title line", map[string]string{"templates/note/head.md.tmpl": "# Note\n\nTitle: {{ .title }}\n"})
	r.Git("tag", "v2")
	r.CommitFiles("Mark the items", map[string]string{"templates/note/items.md.tmpl": "{{ range .items }}* {{ . }}\n{{ end }}"})
	got := runCLI(t, "", "--templates", r.Dir, "diff", "v1", "v2", "--format", "json")
	var rep struct {
		CacheBreaks int `json:"cache_breaks"`
		Uncached    int `json:"cache_tokens_uncached"`
		Prompts     []struct {
			Name       string `json:"name"`
			CacheBreak *struct {
				Section    string `json:"section"`
				Token      int    `json:"token"`
				Byte       int    `json:"byte"`
				Breakpoint string `json:"breakpoint"`
				Uncached   int    `json:"uncached_tokens"`
			} `json:"cache_break"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &rep); err != nil || got.code != 0 {
		t.Fatalf("exit %d %v\n%s%s", got.code, err, got.stdout, got.stderr)
	}
	if rep.CacheBreaks != 2 || len(rep.Prompts) != 2 || rep.Uncached <= 0 {
		t.Fatalf("report: %s", got.stdout)
	}
	for _, p := range rep.Prompts {
		c := p.CacheBreak
		if c == nil || c.Section != "head" || c.Byte != len("# Note\n\n") || c.Token != 3 || c.Breakpoint != "head" || c.Uncached <= 0 {
			t.Errorf("%s: cache_break %+v", p.Name, c)
		}
	}
	md := runCLI(t, "", "--templates", r.Dir, "diff", "v1", "v2")
	if !strings.Contains(md.stdout, "2 prompts break a cached prefix") || !strings.Contains(md.stdout, "Cached prefix changed: at token 3 (byte 8), in section `head`") {
		t.Errorf("markdown:\n%s", md.stdout)
	}
	after := runCLI(t, "", "--templates", r.Dir, "diff", "v2", "HEAD", "--format", "json")
	if after.code != 0 || strings.Contains(after.stdout, "cache_break") || !strings.Contains(after.stdout, `"changed": 1`) {
		t.Errorf("a change after the breakpoint: %s%s", after.stdout, after.stderr)
	}
}

// TestDiffCacheBreakUncached: a provider reads a prefix from its cache
// only whole, up to a breakpoint, so a change before the first breakpoint
// makes every token up to the last one uncached (not only those after the
// change), and a change after the first keeps that first prefix cached.
func TestDiffCacheBreakUncached(t *testing.T) {
	t.Parallel()
	counter, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	r := &diffReport{counter: counter}
	base := &rendered{
		text:        "one two three\nfour five six\nseven eight\n",
		sections:    []engine.Section{{Name: "a", Start: 0, End: 14}, {Name: "b", Start: 14, End: 28}, {Name: "c", Start: 28, End: 40}},
		breakpoints: []engine.Breakpoint{{Section: "a", End: 14, Tokens: 10}, {Section: "b", End: 28, Tokens: 25}},
	}
	at := func(text string) *rendered {
		h := *base
		h.text = text
		return &h
	}
	first := r.cacheBreakOf(base, at("one TWO three\nfour five six\nseven eight\n"))
	if first == nil || first.Section != "a" || first.Breakpoint != "a" || first.Token == 0 || first.Uncached != 25 {
		t.Errorf("a change in the first block: %+v, want all 25 tokens of the prefix uncached", first)
	}
	second := r.cacheBreakOf(base, at("one two three\nfour FIVE six\nseven eight\n"))
	if second == nil || second.Section != "b" || second.Breakpoint != "b" || second.Uncached != 15 {
		t.Errorf("a change in the second block: %+v, want the 15 tokens after the first breakpoint uncached", second)
	}
	if after := r.cacheBreakOf(base, at("one two three\nfour five six\nseven EIGHT\n")); after != nil {
		t.Errorf("a change after the last breakpoint: %+v", after)
	}
}
