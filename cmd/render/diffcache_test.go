package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
	"github.com/promptsmith/promptsmith/tokens"
)

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
