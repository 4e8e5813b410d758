package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// branchyFS is a variant whose branches are known: an if with an else-if
// and an else, a range with an else, a with without one, and a partial
// with an if of its own.
func branchyFS(examples map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		"schemas/branchy.schema.json": {Data: []byte(`{
  "type": "object", "additionalProperties": false, "required": ["title"],
  "properties": {
    "title": {"type": "string", "description": "T."},
    "admin": {"type": "boolean", "default": false, "description": "A."},
    "mode": {"type": "string", "default": "a", "description": "M."},
    "items": {"type": "array", "default": [], "items": {"type": "string"}, "description": "I."},
    "meta": {"type": "object", "description": "Optional.", "properties": {"x": {"type": "string", "description": "X."}}}
  }
}`)},
		"templates/branchy/prompt.yaml": {Data: []byte("description: Branches\nsections: [main]\n")},
		"templates/branchy/main.md.tmpl": {Data: []byte(
			"# {{ .title }}\n" +
				"{{ if .admin }}admin{{ else if eq .mode \"b\" }}b{{ else }}other{{ end }}\n" +
				"{{ range .items }}- {{ . }}\n{{ else }}none\n{{ end }}" +
				"{{ with get . \"meta\" }}{{ .x }}{{ end }}\n" +
				"{{ template \"_part.tmpl\" . }}\n")},
		"templates/branchy/_part.tmpl": {Data: []byte("{{ if gt (len .items) 1 }}many{{ end }}")},
	}
	for name, data := range examples {
		fsys["templates/branchy/examples/"+name+".yaml"] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

// TestBranches holds the branches a variant's templates have, where they
// are and what they are called: the body of each if, with and range; each
// else, but not the else of an else-if, whose own branches cover it; the
// implicit else of an if or with that has none; a range's else only when
// it is written.
func TestBranches(t *testing.T) {
	t.Parallel()
	lib, err := LoadStrict(branchyFS(nil))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := lib.Variant("branchy")
	var got []string
	for _, b := range v.Branches() {
		got = append(got, fmt.Sprintf("%d %s %s: %s", b.ID, b.File, b.Position, b))
	}
	want := []string{
		`0 _part.tmpl templates/branchy/_part.tmpl:1:7: the body of {{if gt (len .items) 1}}`,
		`1 _part.tmpl templates/branchy/_part.tmpl:1:7: the implicit else of {{if gt (len .items) 1}}, where it is false and writes nothing`,
		`2 main.md.tmpl templates/branchy/main.md.tmpl:2:7: the body of {{if .admin}}`,
		`3 main.md.tmpl templates/branchy/main.md.tmpl:2:32: the body of {{if eq .mode "b"}}`,
		`4 main.md.tmpl templates/branchy/main.md.tmpl:2:58: the else of {{if eq .mode "b"}}`,
		`5 main.md.tmpl templates/branchy/main.md.tmpl:3:10: the body of {{range .items}}`,
		`6 main.md.tmpl templates/branchy/main.md.tmpl:4:11: the else of {{range .items}}`,
		`7 main.md.tmpl templates/branchy/main.md.tmpl:5:18: the body of {{with get . "meta"}}`,
		`8 main.md.tmpl templates/branchy/main.md.tmpl:5:18: the implicit else of {{with get . "meta"}}, where it is false and writes nothing`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("branches\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestCoverage holds which branches the examples of a variant take, and
// the share they cover: counted over every example, partials too; the
// branches no example takes by position.
func TestCoverage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		examples  map[string]string
		uncovered []string // positions
		covered   int
		percent   string
	}{
		{"no example", nil, []string{
			"templates/branchy/_part.tmpl:1:7", "templates/branchy/_part.tmpl:1:7",
			"templates/branchy/main.md.tmpl:2:7", "templates/branchy/main.md.tmpl:2:32", "templates/branchy/main.md.tmpl:2:58",
			"templates/branchy/main.md.tmpl:3:10", "templates/branchy/main.md.tmpl:4:11",
			"templates/branchy/main.md.tmpl:5:18", "templates/branchy/main.md.tmpl:5:18"}, 0, "0.0"},
		{"the defaults only", map[string]string{"basic": "title: T\n"}, []string{
			"templates/branchy/_part.tmpl:1:7", "templates/branchy/main.md.tmpl:2:7", "templates/branchy/main.md.tmpl:2:32",
			"templates/branchy/main.md.tmpl:3:10", "templates/branchy/main.md.tmpl:5:18"}, 4, "44.4"},
		{"two examples", map[string]string{
			"basic": "title: T\n",
			"admin": "title: T\nadmin: true\nitems: [a, b]\nmeta: {x: y}\n"}, []string{
			"templates/branchy/main.md.tmpl:2:32"}, 8, "88.9"},
		{"every branch", map[string]string{
			"basic": "title: T\n",
			"admin": "title: T\nadmin: true\nitems: [a, b]\nmeta: {x: y}\n",
			"b":     "title: T\nmode: b\n"}, nil, 9, "100.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lib, err := LoadStrict(branchyFS(c.examples))
			if err != nil {
				t.Fatal(err)
			}
			v, _ := lib.Variant("branchy")
			cov := v.NewCoverage()
			for _, ex := range v.Examples() {
				in, _ := v.Example(ex)
				plain, err := v.Render(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				covered, err := lib.Render(context.Background(), "branchy", in, Cover(cov))
				if err != nil {
					t.Fatal(err)
				}
				if covered.Text != plain.Text {
					t.Errorf("%s: a render that records its branches writes\n%q\nwhere a plain one writes\n%q", ex, covered.Text, plain.Text)
				}
			}
			var got []string
			for _, b := range cov.Uncovered() {
				got = append(got, b.Position)
			}
			if !slices.Equal(got, c.uncovered) {
				t.Errorf("uncovered\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.uncovered, "\n  "))
			}
			covered, total := cov.Counts()
			if covered != c.covered || total != 9 || fmt.Sprintf("%.1f", cov.Percent()) != c.percent {
				t.Errorf("%d of %d branches, %.1f%%; want %d of 9, %s%%", covered, total, cov.Percent(), c.covered, c.percent)
			}
		})
	}
}

// TestCoverageCostsPlainRendersNothing holds that recording branches
// changes nothing for the renders that do not ask for it: they run the
// templates as parsed, without the calls that record, and the variant's
// own trees are never rewritten.
func TestCoverageCostsPlainRendersNothing(t *testing.T) {
	t.Parallel()
	lib, err := LoadStrict(branchyFS(map[string]string{"basic": "title: T\n"}))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := lib.Variant("branchy")
	in, _ := v.Example("basic")
	cov := v.NewCoverage()
	if _, err := v.Render(context.Background(), in, Cover(cov)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Render(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	instrumented := func(root string) bool { return strings.Contains(root, coverBranch) }
	for _, tmpl := range v.tmpl.Templates() {
		if tmpl.Tree != nil && instrumented(tmpl.Tree.Root.String()) {
			t.Errorf("the variant's template %s was rewritten: %s", tmpl.Name(), tmpl.Tree.Root)
		}
	}
	v.pool.mu.Lock()
	free := slices.Clone(v.pool.free)
	v.pool.mu.Unlock()
	if len(free) == 0 {
		t.Fatal("the plain render left no copy of the templates to look at")
	}
	for _, set := range free {
		for _, tmpl := range set.tmpl.Templates() {
			if tmpl.Tree != nil && instrumented(tmpl.Tree.Root.String()) {
				t.Errorf("a plain render's copy of %s records branches: %s", tmpl.Name(), tmpl.Tree.Root)
			}
		}
	}
	// A second render with the same coverage reuses its copy.
	if _, err := v.Render(context.Background(), in, Cover(cov)); err != nil {
		t.Fatal(err)
	}
	if n := len(cov.pool.free); n != 1 {
		t.Errorf("the coverage keeps %d copies of the templates after two renders one after the other, want 1", n)
	}
}

// TestCoverageOfAnotherVariant: a coverage records the renders of its own
// variant only.
func TestCoverageOfAnotherVariant(t *testing.T) {
	t.Parallel()
	fsys := branchyFS(nil)
	for name, f := range noteFS() {
		fsys[name] = f
	}
	lib, err := LoadStrict(fsys)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lib.Variant("branchy")
	_, err = lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\n")}, Cover(b.NewCoverage()))
	if e := AsError(err); err == nil || e.Kind != KindUsage || !strings.Contains(e.Reason, "variant branchy's, not note's") {
		t.Errorf("a coverage of another variant: %v", err)
	}
}
