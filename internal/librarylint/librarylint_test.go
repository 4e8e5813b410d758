package librarylint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/lint"
)

// TestMerge holds how findings become one per place: the same kind,
// severity, position and message are one finding, which counts the
// examples that hit it and names them, sorted, in its message; the first
// keeps its place; no kind is KindLint.
func TestMerge(t *testing.T) {
	f := func(pos, msg string, examples ...string) lint.Finding {
		return lint.Finding{Position: pos, Severity: lint.Error, Message: msg, Examples: examples}
	}
	same := func(f lint.Finding) lint.Finding { f.Same = "check"; return f }
	cases := []struct {
		name string
		in   []lint.Finding
		want []string // String, then count
	}{
		{"nothing to merge", []lint.Finding{f("a:1:1", "m"), f("a:2:1", "m")},
			[]string{"a:1:1: error: m 0", "a:2:1: error: m 0"}},
		{"the same static finding twice", []lint.Finding{f("a:1:1", "m"), f("a:1:1", "m")},
			[]string{"a:1:1: error: m 0"}},
		{"one example", []lint.Finding{f("t:3:4", "boom", "basic")},
			[]string{"t:3:4: error: example basic: boom 1"}},
		{"many examples, one place", []lint.Finding{f("t:3:4", "boom", "c"), f("x:1:1", "other", "a"), f("t:3:4", "boom", "a"), f("t:3:4", "boom", "b")},
			[]string{"t:3:4: error: boom (in 3 examples: a, b, c) 3", "x:1:1: error: example a: other 1"}},
		{"more than five", []lint.Finding{f("t:1:1", "boom", "a", "b", "c", "d", "e", "f", "g")},
			[]string{"t:1:1: error: boom (in 7 examples: a, b, c, d, e and 2 more) 7"}},
		{"merged already", []lint.Finding{{Position: "t:1:1", Severity: lint.Error, Message: "boom (in 2 examples: a, b)", Count: 2, Examples: []string{"a", "b"}}},
			[]string{"t:1:1: error: boom (in 2 examples: a, b) 2"}},
		{"another message at the same place", []lint.Finding{f("t:1:1", "boom", "a"), f("t:1:1", "bang", "b")},
			[]string{"t:1:1: error: example a: boom 1", "t:1:1: error: example b: bang 1"}},
		// A check of prompt.yaml says where it fails in each example's prompt.
		{"the same check at its place", []lint.Finding{same(f("p:7", "at line 3", "b")), same(f("p:7", "at line 4", "a")), same(f("p:7", "at line 3", "c"))},
			[]string{"p:7: error: example b: at line 3 (and in 2 more examples: a, c) 3"}},
		{"the same check, one example", []lint.Finding{same(f("p:7", "at line 3", "b"))},
			[]string{"p:7: error: example b: at line 3 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, m := range Merge(c.in) {
				if m.Kind != lint.KindLint {
					t.Errorf("%s: kind %q", m, m.Kind)
				}
				got = append(got, m.String()+" "+strconv.Itoa(m.Count))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("merged\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// library is three variants: ok, whose template fails on the examples
// that have no items, and whose golden files are in dir; broken and
// worse, which do not load.
func library(t *testing.T) (*engine.Library, string) {
	t.Helper()
	schema := `{"type": "object", "additionalProperties": false, "required": ["title"], "properties": {
  "title": {"type": "string", "description": "T."},
  "items": {"type": "array", "default": [], "items": {"type": "string"}, "description": "I."}}}`
	fsys := fstest.MapFS{
		"schemas/ok.schema.json":        {Data: []byte(schema)},
		"schemas/broken.schema.json":    {Data: []byte(schema)},
		"templates/ok/prompt.yaml":      {Data: []byte("description: OK\nsections: [main]\n")},
		"templates/ok/main.md.tmpl":     {Data: []byte("# {{ .title }}\n{{ index .items 0 }}\n")},
		"templates/ok/examples/a.yaml":  {Data: []byte("title: A\n")},
		"templates/ok/examples/b.yaml":  {Data: []byte("title: B\n")},
		"templates/ok/examples/c.yaml":  {Data: []byte("title: C\nitems: [x]\n")},
		"templates/ok/examples/d.yaml":  {Data: []byte("title: D\nitems: [y]\n")},
		"templates/broken/prompt.yaml":  {Data: []byte("description: Broken\nsections: [main]\n")},
		"templates/broken/main.md.tmpl": {Data: []byte("{{ if .title }}\n")},
		"templates/worse/prompt.yaml":   {Data: []byte("description: Worse\nsectionz: [main]\n")},
	}
	lib := load(t, fsys)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ok"), 0o755)
	os.WriteFile(filepath.Join(dir, "ok", "c.md"), []byte("# C\nx\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok", "d.md"), []byte("# D\nold\n"), 0o644)
	return lib, dir
}

// TestFindings holds what lint reports of a library: every variant that
// does not load; a problem of a template that many examples hit once, at
// the template's line, with how many and which; golden files apart, as
// warnings of their own kind, the types' with the prompts'.
func TestFindings(t *testing.T) {
	broken := []string{
		"lint templates/broken/main.md.tmpl:1:1: error: {{if}} opened at templates/broken/main.md.tmpl:1:1 is never closed (add {{ end }} where the if block should end)",
		`lint templates/worse/prompt.yaml:2: error: unknown field "sectionz" (did you mean "sections"?; the fields here are: description, schema, sections, join, ids, verbatim, rules, checks, log, gather, budget, budget_examples, cache, seed; templates/README.md lists the manifest's fields)`,
	}
	cases := []struct {
		name   string
		golden bool
		want   []string
	}{
		{"static", false, broken},
		{"with the examples", true, append(slices.Clone(broken),
			"lint templates/ok/main.md.tmpl:2:4: error: index: reflect: slice index out of range (in index .items 0) (fix the template at that line) (in 2 examples: a, b) 2",
			"golden DIR/ok/d.md: warning: the rendered prompt differs; render test shows the diff",
			"golden DIR/types/ok.py: warning: no golden file (render test --update writes it)",
			"golden DIR/types/ok.ts: warning: no golden file (render test --update writes it)",
		)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lib, dir := library(t)
			goldenDir := ""
			if c.golden {
				goldenDir = dir
			}
			got, err := Findings(context.Background(), lib, goldenDir, nil)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, f := range got {
				line := string(f.Kind) + " " + strings.ReplaceAll(f.String(), dir, "DIR")
				if f.Count > 0 {
					line += " " + strconv.Itoa(f.Count)
				}
				lines = append(lines, line)
			}
			if !slices.Equal(lines, c.want) {
				t.Errorf("findings\n  %s\nwant\n  %s", strings.Join(lines, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
	lib, _ := library(t)
	if _, err := Findings(context.Background(), lib, "", []string{"okk"}); err == nil || !strings.Contains(err.Error(), `unknown variant "okk"`) {
		t.Errorf("an unknown variant: %v", err)
	}
}

// TestFindingsOfARemovedVariant: lint of the whole library warns of the
// golden files of a variant it no longer has, prompts and types, as golden
// findings; not of those of a variant that does not load (broken), nor of
// the types' folder; and lint of named variants says nothing of either.
func TestFindingsOfARemovedVariant(t *testing.T) {
	lib, dir := library(t)
	for _, f := range []string{"gone/a.md", "gone/a.100-tokens.md", "broken/a.md", "types/gone.ts", "types/broken.py", "types/stray.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x\n"), 0o644)
	}
	goldenFindings := func(names ...string) []string {
		got, err := Findings(context.Background(), lib, dir, names)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range got {
			if f.Kind == lint.KindGolden && !strings.Contains(f.Position, "/ok") {
				out = append(out, strings.ReplaceAll(f.String(), dir, "DIR"))
			}
		}
		return out
	}
	want := []string{
		"DIR/gone/a.100-tokens.md: warning: no variant gone produces it (render test --update deletes it)",
		"DIR/gone/a.md: warning: no variant gone produces it (render test --update deletes it)",
		"DIR/types/gone.ts: warning: the types of no variant (render test --update deletes it)",
	}
	if got := goldenFindings(); !slices.Equal(got, want) {
		t.Errorf("the whole library:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if got := goldenFindings("ok"); len(got) != 0 {
		t.Errorf("lint ok:\n  %s", strings.Join(got, "\n  "))
	}
}

// TestFindingsOnceForAMisspeltField: a field the schema does not define
// is one finding, lint's, at the "." before it; the examples that fail on
// it at the same place add none.
func TestFindingsOnceForAMisspeltField(t *testing.T) {
	fsys := fstest.MapFS{
		"schemas/typo.schema.json": {Data: []byte(`{"type": "object", "additionalProperties": false, "required": ["agent"], "properties": {
  "agent": {"type": "object", "description": "A.", "required": ["name"], "properties": {"name": {"type": "string", "description": "N."}}}}}`)},
		"templates/typo/prompt.yaml":     {Data: []byte("description: Typo\nsections: [main]\n")},
		"templates/typo/main.md.tmpl":    {Data: []byte("# Agent\n\nYou are {{ .agent.nmae }}.\n")},
		"templates/typo/examples/a.yaml": {Data: []byte("agent: {name: A}\n")},
		"templates/typo/examples/b.yaml": {Data: []byte("agent: {name: B}\n")},
	}
	lib := load(t, fsys)
	errs := findingsWhere(t, lib, func(f lint.Finding) bool { return f.Severity == lint.Error })
	want := []string{`templates/typo/main.md.tmpl:3:18: error: .agent.nmae: the schema defines no field "nmae" here; did you mean "name"?`}
	if !slices.Equal(errs, want) {
		t.Errorf("errors\n  %s\nwant\n  %s", strings.Join(errs, "\n  "), strings.Join(want, "\n  "))
	}
	// The render's error is at the same place.
	v, _ := lib.Variant("typo")
	in, _ := v.Example("a")
	_, rerr := v.Render(context.Background(), in)
	if e := engine.AsError(rerr); rerr == nil || e.Position != "templates/typo/main.md.tmpl:3:18" {
		t.Errorf("the render fails at %v, want templates/typo/main.md.tmpl:3:18", rerr)
	}
}

// TestFindingsOnceForAnOptionalField: an optional field read without a
// guard is a warning; where examples leave it out and fail there, their
// error is the one finding.
func TestFindingsOnceForAnOptionalField(t *testing.T) {
	fsys := fstest.MapFS{
		"schemas/opt.schema.json": {Data: []byte(`{"type": "object", "additionalProperties": false, "properties": {
  "team": {"type": "string", "description": "T."}}}`)},
		"templates/opt/prompt.yaml":     {Data: []byte("description: Opt\nsections: [main]\n")},
		"templates/opt/main.md.tmpl":    {Data: []byte("Team: {{ .team }}\n")},
		"templates/opt/examples/a.yaml": {Data: []byte("{}\n")},
		"templates/opt/examples/b.yaml": {Data: []byte("team: B\n")},
	}
	lib := load(t, fsys)
	static, err := Findings(context.Background(), lib, "", nil)
	if err != nil || len(static) != 1 || static[0].Severity != lint.Warning || static[0].Position != "templates/opt/main.md.tmpl:1:10" {
		t.Fatalf("without the examples: %v, %v", static, err)
	}
	at := findingsWhere(t, lib, func(f lint.Finding) bool { return f.Kind == lint.KindLint })
	if len(at) != 1 || !strings.HasPrefix(at[0], "templates/opt/main.md.tmpl:1:10: error: example a: .team: this input has no field") {
		t.Errorf("with the examples:\n  %s", strings.Join(at, "\n  "))
	}
}

// load loads a library the test wrote.
func load(t *testing.T, fsys fstest.MapFS) *engine.Library {
	t.Helper()
	lib, err := engine.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// findingsWhere are the findings on lib, its examples rendered, that keep
// keeps, as text.
func findingsWhere(t *testing.T, lib *engine.Library, keep func(lint.Finding) bool) []string {
	t.Helper()
	got, err := Findings(context.Background(), lib, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range got {
		if keep(f) {
			out = append(out, f.String())
		}
	}
	return out
}

// TestCoverageFindings: each branch no example takes is a warning of kind
// coverage at the branch.
func TestCoverageFindings(t *testing.T) {
	lib, _ := library(t)
	covs, err := Coverage(context.Background(), lib, []string{"ok"})
	if err != nil {
		t.Fatal(err)
	}
	if len(covs) != 1 || covs[0].Variant() != "ok" {
		t.Fatalf("coverage of %d variants", len(covs))
	}
	if got := CoverageFindings(covs); len(got) != 0 {
		t.Errorf("a template without branches: %v", got)
	}
}
