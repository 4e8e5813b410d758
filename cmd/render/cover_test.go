package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

const smallSchema = `{"type": "object", "additionalProperties": false, "required": ["title"], "properties": {
  "title": {"type": "string", "description": "T."},
  "items": {"type": "array", "default": [], "items": {"type": "string"}, "description": "I."},
  "extra": {"type": "string", "description": "Read by nothing."}}}
`

// TestLintReport holds what render lint prints: a problem that many
// examples hit once, at the template's line, with how many and which;
// every variant that does not load; the warnings of what is there for
// nothing (a property no template reads, a partial nothing includes, a
// code fence left open); the golden files in a section of their own, which
// do not fail lint, the types' (types/<variant>.ts, .py) as well as the
// prompts', so that lint counts what render test fails on; a summary; and
// the same as JSON.
func TestLintReport(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"schemas/ok.schema.json":        smallSchema,
		"schemas/broken.schema.json":    smallSchema,
		"templates/ok/prompt.yaml":      "description: OK\nsections: [main, tail]\n",
		"templates/ok/main.md.tmpl":     "# {{ .title }}\n{{ index .items 0 }}\n",
		"templates/ok/tail.md.tmpl":     "Run:\n\n```sh\nmake\n",
		"templates/ok/_unused.tmpl":     "nothing\n",
		"templates/ok/examples/a.yaml":  "title: A\n",
		"templates/ok/examples/b.yaml":  "title: B\n",
		"templates/ok/examples/c.yaml":  "title: C\nitems: [x]\n",
		"templates/ok/examples/d.yaml":  "title: D\nitems: [y]\n",
		"testdata/golden/ok/c.md":       "# C\nx\n\nRun:\n\n```sh\nmake\n",
		"testdata/golden/ok/d.md":       "# D\nold\n",
		"templates/broken/prompt.yaml":  "description: Broken\nsections: [main]\n",
		"templates/broken/main.md.tmpl": "{{ if .title }}\n",
		"templates/worse/prompt.yaml":   "description: Worse\nsectionz: [main]\n",
	}
	dir := fixture.WriteFiles(t, files)
	r := runCLI(t, "", "lint", "--templates", dir)
	got := strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), "")
	want := `templates/broken/main.md.tmpl:1:1: error: {{if}} opened at templates/broken/main.md.tmpl:1:1 is never closed (add {{ end }} where the if block should end)
schemas/ok.schema.json:4:3: warning: no template of ok reads .extra, nor does its manifest: what a caller sends for it changes no prompt; use it, or remove it from the schema
templates/ok/_unused.tmpl:1:1: warning: partial _unused.tmpl is used by no template: nothing includes it ({{ template "_unused.tmpl" . }} or include "_unused.tmpl" .); use it or delete it
templates/ok/tail.md.tmpl:3:1: warning: the code fence ` + "```" + ` opened here is never closed in tail.md.tmpl: the rest of the prompt would be code; close it with a line ` + "```" + `
templates/worse/prompt.yaml:2: error: unknown field "sectionz" (did you mean "sections"?; the fields here are: description, schema, sections, join, ids, verbatim, rules, checks, log, gather, budget, budget_examples, cache, seed; templates/README.md lists the manifest's fields)
templates/ok/main.md.tmpl:2:4: error: index: reflect: slice index out of range (in index .items 0) (fix the template at that line) (in 2 examples: a, b)

golden files (not lint errors: render test shows the diffs and fails on them, render test --update accepts them):
testdata/golden/ok/d.md: warning: the rendered prompt differs; render test shows the diff
testdata/golden/types/ok.py: warning: no golden file (render test --update writes it)
testdata/golden/types/ok.ts: warning: no golden file (render test --update writes it)

cacheable prefixes (information: where each variant's prompt stops being the same from request to request, and why; cache: in prompt.yaml):
templates/ok/prompt.yaml: info: ok declares no cache:, so nothing is known to change between requests and no breakpoint is set; list the fields that do under cache.volatile and the sections to cache after under cache.breakpoints
lint: 3 error(s) (3 warning(s)); 3 golden file(s) out of date: run render test
`
	if r.code != 1 || got != want {
		t.Errorf("render lint: exit %d\n%s\nwant exit 1\n%s%s", r.code, got, want, r.stderr)
	}

	// The same as JSON: each finding with its position, severity, kind,
	// message, and the count of the examples that hit it.
	r = runCLI(t, "", "lint", "--templates", dir, "--format", "json")
	var findings []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &findings); err != nil || r.code != 1 || len(findings) != 10 {
		t.Fatalf("render lint --format json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	counted := findings[5]
	if counted["kind"] != "lint" || counted["severity"] != "error" || counted["count"] != 2.0 ||
		!strings.HasSuffix(counted["position"].(string), "main.md.tmpl:2:4") || len(counted["examples"].([]any)) != 2 {
		t.Errorf("the finding of two examples: %v", counted)
	}
	if g := findings[6]; g["kind"] != "golden" || g["severity"] != "warning" || g["count"] != nil {
		t.Errorf("the golden file: %v", g)
	}
	for _, f := range findings {
		for _, key := range []string{"position", "severity", "kind", "message"} {
			if _, ok := f[key]; !ok {
				t.Errorf("a finding without %s: %v", key, f)
			}
		}
	}

	// Without the errors, lint passes though a golden file differs.
	os.RemoveAll(filepath.Join(dir, "templates", "broken"))
	os.RemoveAll(filepath.Join(dir, "templates", "worse"))
	os.WriteFile(filepath.Join(dir, "templates", "ok", "main.md.tmpl"), []byte("# {{ .title }}\n{{ range .items }}{{ . }}\n{{ end }}"), 0o644)
	r = runCLI(t, "", "lint", "--templates", dir)
	if r.code != 0 || !strings.HasSuffix(r.stdout, "lint: no errors (3 warning(s)); 5 golden file(s) out of date: run render test\n") {
		t.Errorf("a library with warnings and a golden file that differs: exit %d\n%s", r.code, r.stdout)
	}
}

// TestLintGoldenFilesOnly: with nothing to report but golden files, the
// golden section starts the output, with no blank line before it.
func TestLintGoldenFilesOnly(t *testing.T) {
	t.Parallel()
	dir := fixture.WriteFiles(t, map[string]string{
		"schemas/ok.schema.json": `{"type": "object", "additionalProperties": false, "required": ["title"],
  "properties": {"title": {"type": "string", "description": "T."}}}`,
		"templates/ok/prompt.yaml":     "description: OK\nsections: [main]\n",
		"templates/ok/main.md.tmpl":    "# {{ .title }}\n",
		"templates/ok/examples/a.yaml": "title: A\n",
		"testdata/golden/ok/a.md":      "# Old\n",
	})
	r := runCLI(t, "", "lint", "--templates", dir)
	want := `golden files (not lint errors: render test shows the diffs and fails on them, render test --update accepts them):
testdata/golden/ok/a.md: warning: the rendered prompt differs; render test shows the diff
testdata/golden/types/ok.py: warning: no golden file (render test --update writes it)
testdata/golden/types/ok.ts: warning: no golden file (render test --update writes it)

cacheable prefixes (information: where each variant's prompt stops being the same from request to request, and why; cache: in prompt.yaml):
templates/ok/prompt.yaml: info: ok declares no cache:, so nothing is known to change between requests and no breakpoint is set; list the fields that do under cache.volatile and the sections to cache after under cache.breakpoints
lint: no errors (0 warning(s)); 3 golden file(s) out of date: run render test
`
	if got := strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), ""); r.code != 0 || got != want {
		t.Errorf("render lint: exit %d\n%s\nwant exit 0\n%s%s", r.code, got, want, r.stderr)
	}
}

// branchy is a library whose branches are known (engine's TestBranches
// holds them).
func branchy(t *testing.T, examples map[string]string) string {
	t.Helper()
	files := map[string]string{
		"schemas/branchy.schema.json": `{"type": "object", "additionalProperties": false, "required": ["title"], "properties": {
  "title": {"type": "string", "description": "T."},
  "admin": {"type": "boolean", "default": false, "description": "A."},
  "mode": {"type": "string", "default": "a", "description": "M."},
  "items": {"type": "array", "default": [], "items": {"type": "string"}, "description": "I."}}}`,
		"templates/branchy/prompt.yaml": "description: Branches\nsections: [main]\n",
		"templates/branchy/main.md.tmpl": "# {{ .title }}\n" +
			"{{ if .admin }}admin{{ else if eq .mode \"b\" }}b{{ else }}other{{ end }}\n" +
			"{{ range .items }}- {{ . }}\n{{ else }}none\n{{ end }}",
	}
	for name, data := range examples {
		files["templates/branchy/examples/"+name+".yaml"] = data
	}
	return fixture.WriteFiles(t, files)
}

// TestTestCover holds what render test --cover adds to render test: each
// branch no example takes, at its file:line:col, and the share of the
// branches the examples take, per variant and in total; coverage does not
// change the exit status. render lint --cover gives each as a warning.
func TestTestCover(t *testing.T) {
	t.Parallel()
	dir := branchy(t, map[string]string{"basic": "title: T\n", "admin": "title: A\nadmin: true\nitems: [x]\n"})
	if r := runCLI(t, "", "test", "--templates", dir, "--update"); r.code != 0 {
		t.Fatalf("test --update: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := runCLI(t, "", "test", "--templates", dir, "--cover")
	// What render test prints, then the coverage.
	got := strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), "")
	if summary, _, _ := strings.Cut(got, "\n"); !strings.HasSuffix(summary, " 0 changed, 0 failed") {
		t.Errorf("render test --cover does not start with render test's summary:\n%s", got)
	}
	_, got, _ = strings.Cut(got, "\n")
	want := `templates/branchy/main.md.tmpl:2:32: not covered: the body of {{if eq .mode "b"}}
coverage branchy  80.0% of 5 branches (1 not covered)
coverage total    80.0% of 5 branches
`
	if r.code != 0 || got != want {
		t.Errorf("render test --cover: exit %d\n%s\nwant exit 0\n%s%s", r.code, got, want, r.stderr)
	}

	r = runCLI(t, "", "test", "--templates", dir, "--cover", "--format", "json")
	var rep struct {
		Tests    []map[string]any `json:"tests"`
		Coverage struct {
			Variants []struct {
				Variant   string
				Covered   int
				Branches  int
				Percent   float64
				Uncovered []struct{ Position, Kind, Condition string }
			}
			Covered, Branches int
			Percent           float64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("render test --cover --format json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	c := rep.Coverage
	examples := 0
	for _, o := range rep.Tests {
		if o["example"] != nil {
			examples++
		}
	}
	if examples != 2 || c.Covered != 4 || c.Branches != 5 || c.Percent != 80 || len(c.Variants) != 1 ||
		len(c.Variants[0].Uncovered) != 1 || c.Variants[0].Uncovered[0].Kind != "if" || c.Variants[0].Uncovered[0].Condition != `if eq .mode "b"` ||
		!strings.HasSuffix(c.Variants[0].Uncovered[0].Position, "main.md.tmpl:2:32") {
		t.Errorf("render test --cover --format json:\n%s", r.stdout)
	}

	r = runCLI(t, "", "lint", "--templates", dir, "--cover")
	got = strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), "")
	want = `branches no example takes (add an example that takes each; render test --cover):
templates/branchy/main.md.tmpl:2:32: warning: no example takes the body of {{if eq .mode "b"}}; add an example input that does, or, if no input can, say why in templates/branchy/examples/README.md (render test --cover)

cacheable prefixes (information: where each variant's prompt stops being the same from request to request, and why; cache: in prompt.yaml):
templates/branchy/prompt.yaml: info: branchy declares no cache:, so nothing is known to change between requests and no breakpoint is set; list the fields that do under cache.volatile and the sections to cache after under cache.breakpoints
lint: no errors (1 warning(s))
`
	if r.code != 0 || got != want {
		t.Errorf("render lint --cover: exit %d\n%s\nwant exit 0\n%s%s", r.code, got, want, r.stderr)
	}

	// Every branch taken.
	os.WriteFile(filepath.Join(dir, "templates", "branchy", "examples", "b.yaml"), []byte("title: B\nmode: b\n"), 0o644)
	runCLI(t, "", "test", "--templates", dir, "--update")
	r = runCLI(t, "", "test", "--templates", dir, "--cover")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "coverage branchy 100.0% of 5 branches\ncoverage total   100.0% of 5 branches\n") {
		t.Errorf("every branch taken: exit %d\n%s", r.code, r.stdout)
	}
}
