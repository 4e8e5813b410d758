package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestRenderTest is the author's loop on a copy of the module's test
// library: render test passes, fails with a diff after a template edit, and
// passes again after --update, which says what it changed; the same for the
// types generated from a schema after a schema edit.
func TestRenderTest(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	if r := runCLI(t, "", "test", "note", "memo", "--templates", dir); r.code != 0 || !strings.Contains(r.stdout, "0 failed") {
		t.Fatalf("a clean copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	goldens, _ := filepath.Glob(filepath.Join(dir, "testdata", "golden", "note", "*.md"))
	tmpl := filepath.Join(dir, "templates", "note", "title.md.tmpl")
	b, _ := os.ReadFile(tmpl)
	os.WriteFile(tmpl, append(b, "An edited line.\n"...), 0o644)
	r := runCLI(t, "", "test", "--templates", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "+An edited line.") || !strings.Contains(r.stdout, "the rendered prompt differs") {
		t.Fatalf("after an edit: exit %d\n%s", r.code, r.stdout)
	}
	// It ends with the next step.
	if want := fmt.Sprintf("read the diffs above; if they are what you meant, render test --update writes them (%d file(s)), then commit them with the templates\n", len(goldens)); !strings.HasSuffix(r.stdout, want) {
		t.Errorf("after an edit, the output does not end with %q:\n%s", want, r.stdout)
	}
	r = runCLI(t, "", "test", "--templates", dir, "--update")
	if r.code != 0 || !strings.Contains(r.stdout, "updated ") || !strings.Contains(r.stdout, fmt.Sprintf(" %d changed", len(goldens))) {
		t.Fatalf("--update (%d note golden files): exit %d\n%s%s", len(goldens), r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "test", "--templates", dir); r.code != 0 {
		t.Fatalf("after --update: exit %d\n%s", r.code, r.stdout)
	}

	// A schema edit changes the types callers get: render test shows it,
	// --update writes them, and the prompts stay as they are.
	schema := filepath.Join(dir, "schemas", "note.schema.json")
	replaceInFile(t, schema, `"properties": {`, `"properties": {"edited_note": {"type": "string", "description": "An edited field."}, `)
	r = runCLI(t, "", "test", "--templates", dir)
	types := filepath.Join(dir, "testdata", "golden", "types", "note")
	for _, f := range []string{types + ".ts", types + ".py"} {
		if r.code != 1 || !strings.Contains(r.stdout, "FAIL "+f+": the generated types differ") {
			t.Errorf("after a schema edit: exit %d, no diff of %s\n%s", r.code, f, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "edited_note") || !strings.Contains(r.stdout, " 2 failed") {
		t.Errorf("after a schema edit: no diff of the types, or more than they failed\n%s", r.stdout)
	}
	r = runCLI(t, "", "test", "note", "--templates", dir, "--update", "--format", "json")
	var list []struct{ Variant, Lang, File, Status string }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
		t.Fatalf("--update --format json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	updated := 0
	for _, e := range list {
		if e.Status == "updated" {
			updated++
			if e.Lang == "" || !strings.HasPrefix(e.File, types) {
				t.Errorf("updated %+v, want only the types", e)
			}
		}
	}
	if updated != 2 {
		t.Errorf("%d files updated, want the two of the types: %s", updated, r.stdout)
	}
	if r := runCLI(t, "", "test", "--templates", dir); r.code != 0 {
		t.Fatalf("after --update: exit %d\n%s", r.code, r.stdout)
	}

	// A types file of no variant is reported, and --update deletes it.
	stale := filepath.Join(dir, "testdata", "golden", "types", "gone.ts")
	os.WriteFile(stale, []byte("export {};\n"), 0o644)
	if r := runCLI(t, "", "test", "--templates", dir); r.code != 1 || !strings.Contains(r.stdout, "FAIL "+stale+": the types of no variant") {
		t.Errorf("a stale types file: exit %d\n%s", r.code, r.stdout)
	}
	// With no diff printed, the last line speaks of none.
	if r := runCLI(t, "", "test", "--templates", dir); strings.Contains(r.stdout, "diff") ||
		!strings.HasSuffix(r.stdout, "render test --update writes the missing golden files and deletes those of no example or variant (1 file(s), listed above), then commit them with the templates\n") {
		t.Errorf("only a stale file: the output speaks of diffs it did not print, or does not end with the next step:\n%s", r.stdout)
	}
	if r := runCLI(t, "", "test", "--templates", dir, "--update"); r.code != 0 || !strings.Contains(r.stdout, "removed "+stale) {
		t.Errorf("--update of a stale types file: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "", "test", "nosuch", "--templates", dir); r.code != 2 {
		t.Errorf("an unknown variant: exit %d", r.code)
	}
}

// TestLintAndNew: on a copy of the module's test library, a misspelt field
// in a branch no example runs makes render lint exit 1 naming the file,
// line, column and the closest field; a schema default of the wrong type is
// an error; render new writes a variant that lint and test pass at once.
func TestLintAndNew(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	if r := runCLI(t, "", "lint", "--templates", dir); r.code != 0 {
		t.Fatalf("a clean copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tmpl := filepath.Join(dir, "templates", "note", "body.md.tmpl")
	b, _ := os.ReadFile(tmpl)
	os.WriteFile(tmpl, append([]byte("{{ if hasKey . \"urgent\" }}{{ .titel }}{{ end }}"), b...), 0o644)
	r := runCLI(t, "", "lint", "--templates", dir)
	want := `templates/note/body.md.tmpl:1:30: error: .titel: the schema defines no field "titel" here; did you mean "title"?`
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Fatalf("a misspelt field: exit %d\n%s\nwant %s", r.code, r.stdout, want)
	}
	os.WriteFile(tmpl, b, 0o644)
	schema := filepath.Join(dir, "schemas", "note.schema.json")
	s, _ := os.ReadFile(schema)
	os.WriteFile(schema, []byte(strings.Replace(string(s), `"urgent": {"type": "boolean", "default": false`, `"urgent": {"type": "boolean", "default": 5`, 1)), 0o644)
	if r := runCLI(t, "", "lint", "--templates", dir, "--format", "json"); r.code != 1 || !strings.Contains(r.stdout, "the default is not valid here") {
		t.Errorf("a wrong-typed default: exit %d\n%s", r.code, r.stdout)
	}
	os.WriteFile(schema, s, 0o644)
	// The name render new --help shows, unless the library has it already.
	name := freeVariantName(t, dir, "reviewer")
	r = runCLI(t, "", "new", name, "--templates", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "render test "+name+" --templates "+dir+" --update") {
		t.Fatalf("new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{"testdata/golden/" + name + "/basic.md", "testdata/golden/" + name + "/minimal.md",
		"testdata/golden/types/" + name + ".ts", "testdata/golden/types/" + name + ".py"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("new wrote no %s: %v", f, err)
		}
	}
	for _, ex := range []string{"basic.yaml", "minimal.yaml"} {
		example, _ := os.ReadFile(filepath.Join(dir, "templates", name, "examples", ex))
		if want := "# yaml-language-server: $schema=../../../schemas/" + name + ".schema.json\n"; !strings.HasPrefix(string(example), want) {
			t.Errorf("the example %s does not start with %q:\n%s", ex, want, example)
		}
	}
	// Its examples take every branch: lint --cover has nothing to say but
	// where its cacheable prefix ends.
	if r := runCLI(t, "", "lint", name, "--templates", dir, "--cover"); r.code != 0 || !strings.HasPrefix(r.stdout, "cacheable prefixes") ||
		strings.Count(r.stdout, "\n") != 3 || !strings.HasSuffix(r.stdout, "\nlint: no errors (0 warning(s))\n") {
		t.Errorf("lint --cover of a new variant: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "", "test", name, "--templates", dir, "--cover"); r.code != 0 || !strings.Contains(r.stdout, "% of 5 branches\n") || !strings.HasSuffix(r.stdout, "coverage total "+strings.Repeat(" ", max(len(name)-5, 0))+"100.0% of 5 branches\n") {
		t.Errorf("test --cover of a new variant: exit %d\n%s", r.code, r.stdout)
	}
	// Every golden file of the library, the new variant's types included.
	if r := runCLI(t, "", "test", "--templates", dir); r.code != 0 || !strings.Contains(r.stdout, " 0 changed, 0 failed") {
		t.Errorf("test after new: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "", "new", name, "--templates", dir); r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("new of a taken name: exit %d\n%s", r.code, r.stderr)
	}

	// A golden file left of a name refuses it, and new writes nothing.
	other := freeVariantName(t, dir, name)
	stale := filepath.Join(dir, "testdata", "golden", "types", other+".py")
	os.WriteFile(stale, []byte("x\n"), 0o644)
	if r := runCLI(t, "", "new", other, "--templates", dir); r.code != 2 || !strings.Contains(r.stderr, stale) {
		t.Errorf("new over a golden file: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "templates", other)); err == nil {
		t.Errorf("new refused %s but wrote its templates", other)
	}
}

// TestRemovedVariant is the author's loop of a variant removed: render
// new writes one, the author deletes its templates and schema, render lint
// lists the golden files left, render test fails on each, --update
// deletes them, its folder with them, and render new takes the name
// again. A variant that does not load keeps its golden files.
func TestRemovedVariant(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	name := freeVariantName(t, dir, "intake")
	if r := runCLI(t, "", "new", name, "--templates", dir); r.code != 0 {
		t.Fatalf("new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{"templates/" + name, "schemas/" + name + ".schema.json"} {
		os.RemoveAll(filepath.Join(dir, p))
	}
	folder := filepath.Join(dir, "testdata", "golden", name)
	left := []string{filepath.Join(folder, "basic.md"), filepath.Join(folder, "minimal.md"),
		filepath.Join(dir, "testdata", "golden", "types", name+".py"), filepath.Join(dir, "testdata", "golden", "types", name+".ts")}
	r := runCLI(t, "", "lint", "--templates", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "; 4 golden file(s) out of date: run render test") {
		t.Errorf("lint after the variant went: exit %d\n%s", r.code, r.stdout)
	}
	for _, f := range left[:2] {
		if want := f + ": warning: no variant " + name + " produces it (render test --update deletes it)\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("lint does not say %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, "", "test", "--templates", dir)
	if r.code != 1 || !strings.Contains(r.stdout, " 4 failed") || !strings.HasSuffix(r.stdout, "deletes those of no example or variant (4 file(s), listed above), then commit them with the templates\n") {
		t.Errorf("test after the variant went: exit %d\n%s", r.code, r.stdout)
	}
	for _, f := range left[:2] {
		if want := "FAIL " + f + ": no variant " + name + " produces it (render test --update deletes it)\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("test does not say %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, "", "test", "--templates", dir, "--update")
	if r.code != 0 || !strings.Contains(r.stdout, " 4 changed, 0 failed") ||
		!strings.Contains(r.stdout, "removed "+left[1]+", and the folder "+folder+" of no variant, empty now\n") {
		t.Errorf("test --update after the variant went: exit %d\n%s", r.code, r.stdout)
	}
	for _, f := range append(left, folder) {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("--update left %s: %v", f, err)
		}
	}
	if r := runCLI(t, "", "new", name, "--templates", dir); r.code != 0 {
		t.Errorf("new of the name again: exit %d\n%s", r.code, r.stderr)
	}

	// Broken, the variant keeps its golden files: test says it compared
	// none of them, and --update leaves them.
	os.WriteFile(filepath.Join(dir, "templates", name, "prompt.yaml"), []byte("sections: [\n"), 0o644)
	r = runCLI(t, "", "test", "--templates", dir, "--update")
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL "+name+": the variant does not load, so its golden files were not compared (render test --update leaves them as they are): ") ||
		!strings.Contains(r.stdout, " 0 changed, 1 failed") {
		t.Errorf("test --update of a broken variant: exit %d\n%s", r.code, r.stdout)
	}
	for _, f := range left {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("--update deleted %s of a variant that does not load: %v", f, err)
		}
	}
}

// freeVariantName is base, or base-2, base-3...: the first that names no
// variant, schema or golden file of the library in dir.
func freeVariantName(t *testing.T, dir, base string) string {
	t.Helper()
	for i := 1; i < 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		taken := false
		for _, p := range []string{"templates/" + name, "schemas/" + name + ".schema.json", "testdata/golden/" + name,
			"testdata/golden/types/" + name + ".ts", "testdata/golden/types/" + name + ".py"} {
			if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
				taken = true
			}
		}
		if !taken {
			return name
		}
	}
	t.Fatalf("no free variant name like %s in %s", base, dir)
	return ""
}

// TestSeedPins is the author's loop with a seed pin, on the module's test
// library (memo, whose example basic is pinned to seed memo.txt): lint and
// test list the pin; an edit that changes a pinned example's prompt is an
// error of both that names the seed, and test --update writes nothing and
// exits 1; an optional field with an example that uses it, not pinned, is
// accepted by test --update alone.
func TestSeedPins(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	golden := filepath.Join(dir, "testdata", "golden", "memo")
	const pin = "memo: 1 example(s) pinned to seed memo.txt (buildMemo)"
	if r := runCLI(t, "", "test", "--templates", dir); r.code != 0 || !strings.Contains(r.stdout, "pinned: memo 1 example(s) to seed memo.txt (buildMemo)\n") {
		t.Fatalf("a clean copy: exit %d, want 0 and the pins listed\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "lint", "--templates", dir); r.code != 0 || !strings.Contains(r.stdout, pin) {
		t.Fatalf("lint of a clean copy: exit %d, want 0 and %q\n%s%s", r.code, pin, r.stdout, r.stderr)
	}

	// A wording edit that reaches the pinned example.
	before := map[string][]byte{}
	for _, f := range []string{"basic.md", "bare.md"} {
		before[f], _ = os.ReadFile(filepath.Join(golden, f))
	}
	head := filepath.Join(dir, "templates", "memo", "head.md.tmpl")
	replaceInFile(t, head, "by {{ .author }}", "written by {{ .author }}")
	r := runCLI(t, "", "test", "--templates", dir)
	if want := "FAIL " + filepath.Join(golden, "basic.md") + ": the prompt differs from the golden file, the output of seed memo.txt (buildMemo)"; r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Fatalf("after an edit of the pinned prompt: exit %d, want 1 and %q\n%s", r.code, want, r.stdout)
	}
	if !strings.Contains(r.stdout, "FAIL "+filepath.Join(golden, "bare.md")+": the rendered prompt differs") {
		t.Errorf("the example not pinned is not reported as any other:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "render test --update writes them") {
		t.Errorf("test offers --update for a pinned example:\n%s", r.stdout)
	}
	r = runCLI(t, "", "test", "--templates", dir, "--update")
	if r.code != 1 || !strings.Contains(r.stdout, "--update does not rewrite a pinned example's golden file") ||
		!strings.Contains(r.stdout, "--update wrote nothing") || !strings.Contains(r.stdout, "remove basic from seed.pinned") {
		t.Fatalf("--update with a pinned example changed: exit %d, want 1, a refusal and what to do\n%s", r.code, r.stdout)
	}
	for f, b := range before {
		if now, _ := os.ReadFile(filepath.Join(golden, f)); string(now) != string(b) {
			t.Errorf("a refused --update rewrote %s", f)
		}
	}
	r = runCLI(t, "", "lint", "--templates", dir)
	if want := "example basic is pinned to seed memo.txt (buildMemo) by seed.pinned in templates/memo/prompt.yaml"; r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Fatalf("lint after an edit of the pinned prompt: exit %d, want 1 and %q\n%s", r.code, want, r.stdout)
	}
	if err := os.WriteFile(filepath.Join(dir, "templates", "memo", "head.md.tmpl"), []byte(strings.Replace(mustRead(t, head), "written by", "by", 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	// An optional field the seed does not know, with an example of its own:
	// test --update alone accepts it.
	replaceInFile(t, filepath.Join(dir, "schemas", "memo.schema.json"), `"author": {`,
		`"due": {"type": "string", "description": "When the memo is due."}, "author": {`)
	replaceInFile(t, head, "by {{ .author }}.\n", "by {{ .author }}.\n{{- if hasKey . \"due\" }} Due {{ .due }}.{{ end }}\n")
	if err := os.WriteFile(filepath.Join(dir, "templates", "memo", "examples", "due.yaml"), []byte("title: Soon\nauthor: Cy\ndue: Friday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "", "test", "--templates", dir, "--update"); r.code != 0 || !strings.Contains(r.stdout, "updated "+filepath.Join(golden, "due.md")) {
		t.Fatalf("--update with a new optional field and its example: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := mustRead(t, filepath.Join(golden, "due.md")); !strings.Contains(got, "Due Friday.") {
		t.Errorf("due.md does not show the new field:\n%s", got)
	}
	if r := runCLI(t, "", "lint", "--templates", dir); r.code != 0 {
		t.Errorf("lint after --update: exit %d\n%s", r.code, r.stdout)
	}

	// A pin of no example.
	replaceInFile(t, filepath.Join(dir, "templates", "memo", "prompt.yaml"), "pinned: [basic]", "pinned: [basik]")
	r = runCLI(t, "", "lint", "--templates", dir)
	if r.code != 1 || !strings.Contains(r.stdout, `seed.pinned[0]: no example "basik"`) || !strings.Contains(r.stdout, `did you mean "basic"?`) {
		t.Errorf("a pin of no example: exit %d, want 1, the name and the closest example\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSeedSections: a seed that names the sections its builder writes
// holds only what they write, in <example>.seed.md, to the seed. render
// test --update writes that file for a new pin, accepts an edit of the
// other sections, and refuses one of the seed's, naming the seed; a
// section the manifest does not have is refused at load.
func TestSeedSections(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	manifest := filepath.Join(dir, "templates", "memo", "prompt.yaml")
	replaceInFile(t, manifest, "pinned: [basic]", "sections: [head]\n  pinned: [basic]")
	seedGolden := filepath.Join(dir, "testdata", "golden", "memo", "basic.seed.md")
	if r := runCLI(t, "", "test", "memo", "--templates", dir, "--update"); r.code != 0 || !strings.Contains(r.stdout, "updated "+seedGolden) {
		t.Fatalf("a new seed.sections: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	whole, _ := os.ReadFile(filepath.Join(dir, "testdata", "golden", "memo", "basic.md"))
	if part, _ := os.ReadFile(seedGolden); len(part) == 0 || !strings.HasPrefix(string(whole), string(part)) || strings.Contains(string(part), "## Points") {
		t.Fatalf("basic.seed.md is not what head wrote:\n%q\nof\n%q", part, whole)
	}

	replaceInFile(t, filepath.Join(dir, "templates", "memo", "items.md.tmpl"), "## Points", "## Key points")
	if r := runCLI(t, "", "test", "memo", "--templates", dir, "--update"); r.code != 0 || strings.Contains(r.stdout, "updated "+seedGolden) {
		t.Errorf("an edit outside the seed's sections: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	replaceInFile(t, filepath.Join(dir, "templates", "memo", "head.md.tmpl"), "# Memo", "# Memo\n\nDraft.")
	r := runCLI(t, "", "test", "memo", "--templates", dir, "--update")
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL "+seedGolden) || !strings.Contains(r.stdout, "buildMemo") ||
		!strings.Contains(r.stdout, "--update wrote nothing") {
		t.Errorf("an edit of the seed's section: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "lint", "memo", "--templates", dir); r.code != 1 || !strings.Contains(r.stdout+r.stderr, "basic.seed.md") {
		t.Errorf("lint after an edit of the seed's section: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	replaceInFile(t, manifest, "sections: [head]\n", "sections: [haed]\n")
	if r := runCLI(t, "", "test", "memo", "--templates", dir); r.code == 0 || !strings.Contains(r.stderr+r.stdout, `seed.sections[0]: "haed"`) ||
		!strings.Contains(r.stderr+r.stdout, `did you mean "head"?`) {
		t.Errorf("a seed section the manifest lacks: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
