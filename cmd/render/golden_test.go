package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderTest is the author's loop on a copy of the library: render test
// passes, fails with a diff after a template edit, and passes again after
// --update, which says what it changed.
func TestRenderTest(t *testing.T) {
	dir := copyLibrary(t)
	if err := os.CopyFS(filepath.Join(dir, "testdata"), os.DirFS("../../testdata")); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "", "test", "delegation", "squad", "--templates", dir); r.code != 0 || !strings.Contains(r.stdout, "0 failed") {
		t.Fatalf("a clean copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tmpl := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	b, _ := os.ReadFile(tmpl)
	os.WriteFile(tmpl, []byte(strings.Replace(string(b), "You are a subagent.", "You are an edited subagent.", 1)), 0o644)
	r := runCLI(t, "", "test", "--templates", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "+You are an edited subagent.") || !strings.Contains(r.stdout, "-You are a subagent.") {
		t.Fatalf("after an edit: exit %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, "", "test", "--templates", dir, "--update")
	if r.code != 0 || !strings.Contains(r.stdout, "updated ") || !strings.Contains(r.stdout, "7 changed") {
		t.Fatalf("--update: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "test", "--templates", dir); r.code != 0 {
		t.Fatalf("after --update: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "", "test", "nosuch", "--templates", dir); r.code != 2 {
		t.Errorf("an unknown variant: exit %d", r.code)
	}
}

// TestNoteWorkingCopy: rendering from the embedded library in a folder whose
// templates/ differs from it says so, once, and how to use the copy.
func TestNoteWorkingCopy(t *testing.T) {
	dir := copyLibrary(t)
	t.Chdir(dir)
	if r := runCLI(t, "", "delegation", "--example", "minimal"); r.code != 0 || r.stderr != "" {
		t.Fatalf("an unchanged copy: exit %d, stderr %q", r.code, r.stderr)
	}
	tmpl := filepath.Join("templates", "delegation", "overview.md.tmpl")
	b, _ := os.ReadFile(tmpl)
	os.WriteFile(tmpl, append(b, '\n'), 0o644)
	r := runCLI(t, "", "delegation", "--example", "minimal")
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "--templates .") {
		t.Errorf("a changed copy: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "", "delegation", "--example", "minimal", "--templates", "."); r.stderr != "" {
		t.Errorf("with --templates: %q", r.stderr)
	}
}

// TestLintAndNew: on a copy of the library, a misspelt field in a branch
// no example runs makes render lint exit 1 naming the file, line, column
// and the closest field; a schema default of the wrong type is an error;
// render new writes a variant that lint and test pass at once.
func TestLintAndNew(t *testing.T) {
	t.Parallel()
	dir := copyLibrary(t)
	if err := os.CopyFS(filepath.Join(dir, "testdata"), os.DirFS("../../testdata")); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "", "lint", "--templates", dir); r.code != 0 {
		t.Fatalf("a clean copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tmpl := filepath.Join(dir, "templates", "delegation", "details.md.tmpl")
	b, _ := os.ReadFile(tmpl)
	os.WriteFile(tmpl, append([]byte("{{ if hasKey . \"environment\" }}{{ .delegation.task_sumary }}{{ end }}"), b...), 0o644)
	r := runCLI(t, "", "lint", "--templates", dir)
	want := `templates/delegation/details.md.tmpl:1:45: error: .delegation.task_sumary: the schema defines no field "task_sumary" here; did you mean "task_summary"?`
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Fatalf("a misspelt field: exit %d\n%s\nwant %s", r.code, r.stdout, want)
	}
	os.WriteFile(tmpl, b, 0o644)
	schema := filepath.Join(dir, "schemas", "delegation.schema.json")
	s, _ := os.ReadFile(schema)
	os.WriteFile(schema, []byte(strings.Replace(string(s), `"may_delegate": {"type": "boolean", "default": false`, `"may_delegate": {"type": "boolean", "default": 5`, 1)), 0o644)
	if r := runCLI(t, "", "lint", "--templates", dir, "--format", "json"); r.code != 1 || !strings.Contains(r.stdout, "the default is not valid here") {
		t.Errorf("a wrong-typed default: exit %d\n%s", r.code, r.stdout)
	}
	os.WriteFile(schema, s, 0o644)
	if r := runCLI(t, "", "new", "reviewer", "--templates", dir); r.code != 0 {
		t.Fatalf("new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "lint", "reviewer", "--templates", dir); r.code != 0 || !strings.Contains(r.stdout, "no errors (0 warning(s))") {
		t.Errorf("lint of a new variant: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "", "test", "reviewer", "--templates", dir); r.code != 0 {
		t.Errorf("test of a new variant: exit %d\n%s", r.code, r.stdout)
	}
}
