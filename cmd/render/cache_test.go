package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// deskLibrary is a library of one variant whose prompt is an intro, the
// time and a task; cache is its manifest's cache: entry.
func deskLibrary(t *testing.T, cache string) string {
	t.Helper()
	return fixture.WriteFiles(t, map[string]string{
		"schemas/desk.schema.json": `{"type": "object", "additionalProperties": false, "required": ["name", "now", "task"], "properties": {
  "name": {"type": "string", "description": "N."},
  "now": {"type": "string", "format": "date-time", "description": "T."},
  "task": {"enum": ["write", "review"], "description": "K."}}}`,
		"templates/desk/prompt.yaml":     "description: Desk\nsections: [intro, clock, task]\n" + cache,
		"templates/desk/intro.md.tmpl":   "You are {{ .name }}.\n",
		"templates/desk/clock.md.tmpl":   "It is {{ .now }}.\n",
		"templates/desk/task.md.tmpl":    "Your task: {{ .task }}.\n",
		"templates/desk/examples/a.yaml": "name: Ada\nnow: 2026-01-02T09:00:00Z\ntask: write\n",
		"testdata/golden/desk/a.md":      "You are Ada.\n\nIt is 2026-01-02T09:00:00Z.\n\nYour task: write.\n",
		"testdata/golden/types/desk.ts":  "",
		"testdata/golden/types/desk.py":  "",
	})
}

// TestRenderProviderFormats: --format anthropic splits the prompt at the
// breakpoints, the blocks joined being the prompt; --format openai gives
// the system message and a cache key; another command refuses them.
func TestRenderProviderFormats(t *testing.T) {
	t.Parallel()
	dir := deskLibrary(t, "cache:\n  volatile: [/now, /task]\n  breakpoints: [intro]\n")
	r := runCLI(t, "", "desk", "--templates", dir, "--example", "a", "--format", "anthropic")
	var a struct {
		System []map[string]any `json:"system"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || r.code != 0 || len(a.System) != 2 ||
		a.System[0]["text"] != "You are Ada.\n" || a.System[0]["cache_control"].(map[string]any)["type"] != "ephemeral" || a.System[1]["cache_control"] != nil ||
		a.System[0]["text"].(string)+a.System[1]["text"].(string) != "You are Ada.\n\nIt is 2026-01-02T09:00:00Z.\n\nYour task: write.\n" {
		t.Fatalf("anthropic: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "desk", "--templates", dir, "--example", "a", "--format", "openai")
	var o struct {
		Messages []struct{ Role, Content string }
		Key      string `json:"prompt_cache_key"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil || r.code != 0 || len(o.Messages) != 1 || o.Messages[0].Role != "system" || !strings.HasPrefix(o.Key, "ps-") {
		t.Fatalf("openai: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "list", "--templates", dir, "--format", "openai"); r.code != 2 || !strings.Contains(r.stderr, "not render list") {
		t.Errorf("list --format openai: exit %d %s", r.code, r.stderr)
	}
}

// TestCacheLintAndTest: lint reports where the prefix ends, at the
// template line of the first volatile read, and refuses a breakpoint after
// it there; test proves a good breakpoint by changing each volatile field
// and fails a bad one naming the breakpoint and the first byte that
// differs, with the prefix's tokens against the providers' minimums.
func TestCacheLintAndTest(t *testing.T) {
	t.Parallel()
	good := deskLibrary(t, "cache:\n  volatile: [/now, /task]\n  breakpoints: [intro]\n")
	r := runCLI(t, "", "lint", "--templates", good)
	out := strings.ReplaceAll(r.stdout, good+string(filepath.Separator), "")
	if r.code != 0 || !strings.Contains(out, "templates/desk/clock.md.tmpl:1:10: info: desk: the cacheable prefix is intro; it ends before section clock, which reads /now") {
		t.Errorf("lint: exit %d\n%s", r.code, out)
	}
	runCLI(t, "", "test", "--templates", good, "--update") // the types' golden files
	r = runCLI(t, "", "test", "--templates", good)
	if r.code != 0 || !strings.Contains(r.stdout, "cache desk/a: after intro, 4 tokens (o200k_base); below every provider's minimum: OpenAI (1024), Anthropic Sonnet/Opus (1024), Anthropic Haiku (2048); the same with /now, /task changed") ||
		!strings.Contains(r.stdout, "1 example(s) with cache breakpoints: 1 proved, 0 failed") {
		t.Errorf("test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	bad := deskLibrary(t, "cache:\n  volatile: [/now]\n  breakpoints: [clock]\n")
	r = runCLI(t, "", "lint", "--templates", bad)
	out = strings.ReplaceAll(r.stdout, bad+string(filepath.Separator), "")
	if r.code != 1 || !strings.Contains(out, "templates/desk/clock.md.tmpl:1:10: error: section clock reads /now, which cache.volatile lists, before the cache breakpoint after clock") {
		t.Errorf("lint of a breakpoint after the time: exit %d\n%s", r.code, out)
	}
	runCLI(t, "", "test", "--templates", bad, "--update")
	r = runCLI(t, "", "test", "--templates", bad)
	if r.code != 1 || !strings.Contains(r.stdout, `FAIL cache desk/a: the prefix up to the breakpoint after clock changed with /now set to "2026-01-02T10:30:00Z": first differing byte 31 (line 3, column 18): "09:00:00Z.\n" became "10:30:00Z.\n"`) {
		t.Errorf("test of a breakpoint after the time: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
