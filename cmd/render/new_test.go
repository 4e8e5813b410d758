package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewRefusesNamesWindowsCannotCheckOut: render new con (and the other
// device names Windows reserves, with any extension), a name with a
// character Windows forbids, and a name equal but for case to a variant
// the library has are refused, saying what to do, and write nothing.
func TestNewRefusesNamesWindowsCannotCheckOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "templates", "Reviewer"), 0o755)
	os.MkdirAll(filepath.Join(dir, "schemas"), 0o755)
	os.WriteFile(filepath.Join(dir, "schemas", "Planner.schema.json"), []byte("{}"), 0o644)
	for _, c := range []struct{ name, want string }{
		{"con", "Windows reserves for a device"},
		{"aux", "Windows reserves for a device"},
		{"nul", "Windows reserves for a device"},
		{"prn", "Windows reserves for a device"},
		{"com1", "Windows reserves for a device"},
		{"com9", "Windows reserves for a device"},
		{"lpt3", "Windows reserves for a device"},
		{"con.txt", "not a variant name"},
		{"a:b", "not a variant name"},
		{"a<b", "not a variant name"},
		{"a?", "not a variant name"},
		{"reviewer", `differs from the existing "Reviewer" only in case`},
		{"planner", `differs from the existing "Planner" only in case`},
	} {
		r := runCLI(t, "", "new", c.name, "--templates", dir)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "hint:") {
			t.Errorf("render new %s: exit %d\n%s", c.name, r.code, r.stderr)
		}
	}
	for _, ok := range []string{"console", "com10", "com0", "lpt", "auxiliary"} {
		if err := portableName(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "templates"))
	if len(entries) != 1 {
		t.Errorf("refused names wrote %v", entries)
	}
}

// The manifest render new writes describes the variant with the article
// its name takes when read aloud.
func TestNewDescriptionArticle(t *testing.T) {
	for name, want := range map[string]string{
		"incident": "an incident", "squad": "a squad", "owner": "an owner", "user": "a user",
		"hourly": "an hourly", "eval": "an eval", "unit": "a unit", "update": "an update", "one-shot": "a one-shot",
	} {
		files, err := skeletonFiles(name)
		if err != nil {
			t.Fatal(err)
		}
		manifest := files["templates/"+name+"/prompt.yaml"]
		if !strings.Contains(manifest, "description: The prompt of "+want+" agent\n") {
			t.Errorf("render new %s: the manifest's description is not %q:\n%s", name, "The prompt of "+want+" agent", manifest)
		}
	}
}
