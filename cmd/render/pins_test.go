package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

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
