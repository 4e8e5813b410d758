package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// runSearching is runCLI as from the current directory, which render
// searches for the working copy it is in (the package's other tests run
// in cmd/render, a folder of this repository, and leave the search off).
func runSearching(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runApp(t, &app{searchWorkingCopy: true}, stdin, args...)
}

// workingCopyNote is what render says on stderr when it uses the working
// copy at dir.
func workingCopyNote(t *testing.T, dir string) string {
	return "render: using the working copy at " + resolved(t, dir) + " (give --templates to choose another)\n"
}

// resolved is dir with its links resolved, as render names a working copy.
func resolved(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestWorkingCopyByDefault: in a working copy, or any folder below it,
// render uses that copy without --templates and says so, once; render test
// --update writes its golden files; render new writes into it. Outside
// one, render uses the embedded library: render test refuses to compare
// or write golden files it has none of, and render lint checks it without
// them.
func TestWorkingCopyByDefault(t *testing.T) {
	dir := fixture.SmallCopy(t)
	t.Chdir(filepath.Join(dir, "templates", "note"))
	note := workingCopyNote(t, dir)

	r := runSearching(t, "", "test")
	if r.code != 0 || r.stderr != note || !strings.Contains(r.stdout, " 0 failed") {
		t.Fatalf("render test in the working copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tmpl := filepath.Join(dir, "templates", "note", "body.md.tmpl")
	b, _ := os.ReadFile(tmpl)
	os.WriteFile(tmpl, append(b, "\nA line only the working copy has.\n"...), 0o644)
	for _, args := range [][]string{{}, {"--templates", dir}, {"--format", "json"}} {
		r := runSearching(t, "", append([]string{"note", "--example", "basic"}, args...)...)
		wantNote := note
		if len(args) > 0 {
			wantNote = ""
		}
		if r.code != 0 || r.stderr != wantNote || !strings.Contains(r.stdout, "A line only the working copy has.") {
			t.Errorf("render %v: exit %d, stderr %q, want %q; the working copy's prompt: %t", args, r.code, r.stderr, wantNote, strings.Contains(r.stdout, "A line only"))
		}
	}
	if r := runSearching(t, "", "test", "note"); r.code != 1 {
		t.Errorf("render test after an edit: exit %d\n%s", r.code, r.stdout)
	}
	r = runSearching(t, "", "test", "--update")
	golden, _ := os.ReadFile(filepath.Join(dir, "testdata", "golden", "note", "basic.md"))
	if r.code != 0 || !strings.Contains(string(golden), "A line only the working copy has.") {
		t.Errorf("render test --update in the working copy: exit %d, the golden file updated: %t\n%s%s", r.code,
			strings.Contains(string(golden), "A line only"), r.stdout, r.stderr)
	}
	name := freeVariantName(t, dir, "reviewer")
	r = runSearching(t, "", "new", name)
	if r.code != 0 || !strings.Contains(r.stdout, "render test "+name+" --update,") {
		t.Errorf("render new in the working copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "templates", name, "prompt.yaml")); err != nil {
		t.Errorf("render new did not write into the working copy: %v", err)
	}
	if r := runSearching(t, "", "test"); r.code != 0 || !strings.Contains(r.stdout, " 0 changed, 0 failed") {
		t.Errorf("render test after render new: exit %d\n%s", r.code, r.stdout)
	}
	// The audit commands load no library: nothing to say.
	db := filepath.Join(t.TempDir(), "audit.db")
	runSearching(t, "", "note", "--example", "basic", "--audit", db)
	if r := runSearching(t, "", "audit", "verify", "--audit", db); r.code != 0 || r.stderr != "" {
		t.Errorf("audit verify: exit %d, stderr %q", r.code, r.stderr)
	}

	// Outside a working copy: the embedded library, and no --update.
	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	embedded := fixture.Library(t).Names()[0]
	r = runSearching(t, "", embedded, "--example", fixture.Variant(t, embedded).Examples()[0])
	if r.code != 0 || r.stderr != "" || strings.Contains(r.stdout, "A line only the working copy has.") {
		t.Errorf("outside a working copy: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runSearching(t, "", "test", "--update")
	if real, _ := filepath.EvalSymlinks(elsewhere); r.code != 2 || !strings.Contains(r.stderr, real) ||
		!strings.Contains(r.stderr, "no library working copy") || !strings.Contains(r.stderr, "--templates DIR") {
		t.Errorf("render test --update outside a working copy: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("render test --update wrote %v", entries)
	}
	// Nor plain render test: there are no golden files to compare with.
	if r := runSearching(t, "", "test"); r.code != 2 || !strings.Contains(r.stderr, "no library working copy") || r.stdout != "" {
		t.Errorf("render test outside a working copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// lint checks the embedded library, without golden files it does not have.
	if r := runSearching(t, "", "lint"); r.code != 0 || !strings.HasSuffix(r.stdout, "\nlint: no errors (0 warning(s))\n") || strings.Contains(r.stdout, ": warning: ") ||
		!strings.Contains(r.stderr, "linting the library built into render") {
		t.Errorf("render lint outside a working copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFindWorkingCopy: a working copy is the nearest folder, from the
// current one up, holding schemas/ and templates/ with a variant in it.
func TestFindWorkingCopy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkdir := func(p string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("outer/templates/a")
	mkdir("outer/schemas")
	os.WriteFile(filepath.Join(dir, "outer", "templates", "a", "prompt.yaml"), nil, 0o644)
	mkdir("outer/inner/templates") // no variant, no schemas/: not a working copy
	mkdir("outer/inner/deep")
	for from, want := range map[string]string{
		"outer":             "outer",
		"outer/templates/a": "outer",
		"outer/inner/deep":  "outer",
		"outer/inner":       "outer",
		".":                 "",
	} {
		got, ok := findWorkingCopy(filepath.Join(dir, from))
		if want == "" {
			if ok {
				t.Errorf("from %s: found %s, want none", from, got)
			}
			continue
		}
		if !ok || got != filepath.Join(dir, want) {
			t.Errorf("from %s: %q %t, want %s", from, got, ok, want)
		}
	}
}

// TestRenderReadsOneVariant: a render in a working copy reads the variant
// it renders, so another variant's file over the size limit does not stop
// it; what names the library (--format json, whose result carries the
// library's hash) reads it all, and says which file is over, as lint does.
func TestRenderReadsOneVariant(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	big := filepath.Join(dir, "templates", "note", "big.md.tmpl")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "memo", "--example", "basic", "--templates", dir)
	if r.code != 0 || r.stdout == "" {
		t.Fatalf("render memo beside a note over the limit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"memo", "--example", "basic", "--format", "json"}, {"note", "--example", "basic"}, {"lint"}} {
		r := runCLI(t, "", append(args, "--templates", dir)...)
		if r.code == 0 || !strings.Contains(r.stderr+r.stdout, "big.md.tmpl") {
			t.Errorf("render %v: exit %d, want the file over the limit named\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}
