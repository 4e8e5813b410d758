package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/goldentest"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
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
