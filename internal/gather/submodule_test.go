package gather

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// markingScript writes a program that leaves a file called name in marks
// when it runs, and passes its input through.
func markingScript(t *testing.T, marks, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	body := "#!/bin/sh\ntouch " + filepath.Join(marks, name) + "\ncat\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// marked is the names of the marking programs that ran: the files they
// left in marks.
func marked(marks string) []string {
	ran, _ := os.ReadDir(marks)
	var names []string
	for _, e := range ran {
		names = append(names, e.Name())
	}
	return names
}

// staleChange changes a file without changing its size and dates it an
// hour back, so that git cannot trust the stat its index holds and reads
// the file, through its clean filter were one allowed.
func staleChange(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// addSubmodule adds a submodule called sub to a repository, with a commit
// "Add s.txt" and the files given (name, text, ...), and commits it.
func addSubmodule(t *testing.T, top *testrepo.Repo, files ...string) {
	t.Helper()
	sub := testrepo.New(t)
	sub.Commit("Add s.txt", append([]string{"s.txt", "one\n"}, files...)...)
	top.Git("-c", "protocol.file.allow=always", "submodule", "-q", "add", sub.Dir, "sub")
	top.Git("commit", "-q", "-m", "Add sub")
}

// submoduleRepo is a repository with a submodule, each with a clean filter
// and a textconv of its own picked by its .gitattributes, the submodule's
// set in .git/modules/sub/config, and a stale change in each; and a second
// submodule, emb, with its own .git directory and a clean filter set in
// it. Its .gitmodules asks for both to be looked into (ignore = none).
func submoduleRepo(t *testing.T) (dir, marks string) {
	t.Helper()
	marks = t.TempDir()
	top := testrepo.New(t)
	top.Commit("Add a.txt", "a.txt", "one\n", ".gitattributes", "* filter=evil diff=evil\n")
	addSubmodule(t, top, ".gitattributes", "* filter=subevil diff=subevil\n")
	// A submodule that holds its own .git directory, as one added from a
	// repository already in the work tree does.
	emb := testrepo.New(t)
	emb.Commit("Add e.txt", "e.txt", "one\n", ".gitattributes", "* filter=embevil\n")
	top.Git("-c", "protocol.file.allow=always", "clone", "-q", emb.Dir, "emb")
	top.Git("submodule", "-q", "add", "./emb")
	top.Git("config", "-f", ".gitmodules", "submodule.sub.ignore", "none")
	top.Git("config", "-f", ".gitmodules", "submodule.emb.ignore", "none")
	top.Git("commit", "-q", "-am", "Look into sub and emb")
	for key, name := range map[string]string{
		"filter.evil.clean":  "clean",
		"diff.evil.textconv": "textconv",
	} {
		top.Git("config", key, markingScript(t, marks, name))
	}
	top.Git("config", "filter.evil.required", "true")
	for key, name := range map[string]string{
		"filter.subevil.clean":  "sub-clean",
		"filter.subevil.smudge": "sub-smudge",
		"diff.subevil.textconv": "sub-textconv",
		"core.fsmonitor":        "sub-fsmonitor",
	} {
		top.Git("-C", "sub", "config", key, markingScript(t, marks, name))
	}
	top.Git("-C", "sub", "config", "filter.subevil.required", "true")
	top.Git("-C", "emb", "config", "filter.embevil.clean", markingScript(t, marks, "emb-clean"))
	if st, err := os.Stat(filepath.Join(top.Dir, "emb", ".git", "config")); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("the embedded submodule's configuration is not where this test sets it: %v", err)
	}
	if _, err := os.Stat(filepath.Join(top.Dir, ".git", "modules", "sub", "config")); err != nil {
		t.Fatalf("the submodule's configuration is not where this test sets it: %v", err)
	}
	staleChange(t, filepath.Join(top.Dir, "a.txt"))
	staleChange(t, filepath.Join(top.Dir, "sub", "s.txt"))
	staleChange(t, filepath.Join(top.Dir, "emb", "e.txt"))
	return top.Dir, marks
}

// TestGitProbesRunNothingOfASubmodule: git status once ran the clean filter
// a submodule's own configuration (.git/modules/sub/config) names, as it
// looked into the submodule. Submodules are now ignored, whatever
// .gitmodules says, and their drivers emptied in case a probe asks git to
// look into them all the same.
func TestGitProbesRunNothingOfASubmodule(t *testing.T) {
	dir, marks := submoduleRepo(t)
	probes := []struct {
		field   string
		command string
		want    func(string) bool
	}{
		{"/environment/git_status", "[git, status, --short]",
			func(s string) bool { return s == " M a.txt" }},
		{"/environment/recent_commits", "[git, status, --short, --ignore-submodules=none]",
			func(s string) bool { return s == " M a.txt\n m emb\n m sub" }},
		{"/extra", "[git, diff]",
			func(s string) bool { return strings.Contains(s, "-one\n+two") && !strings.Contains(s, "Subproject") }},
		{"/instructions", "[git, log, -p, -3]",
			func(s string) bool {
				return strings.Contains(s, "Look into sub and emb") && strings.Contains(s, "+one")
			}},
	}
	var manifest string
	for _, p := range probes {
		manifest += "  - {field: " + p.field + ", command: " + p.command + ", timeout: 10s}\n"
	}
	found, warns := Run(context.Background(), hostVariant(t, manifest), Options{Dir: dir, Now: fixedClock})
	if ran := marked(marks); len(ran) > 0 {
		t.Fatalf("git ran the repository's programs: %v", ran)
	}
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	got := values(found)
	for _, p := range probes {
		if s, _ := got[p.field].(string); !p.want(s) {
			t.Errorf("%s: %s gave %q", p.field, p.command, s)
		}
	}

	// The same git, without the probe's settings, runs both filters: the
	// test repository is as hostile as it means to be.
	if out, err := runPlain(dir, "git", "status", "--short"); err != nil {
		t.Logf("plain git status: %v %s", err, out)
	}
	for _, name := range []string{"clean", "sub-clean", "emb-clean"} {
		if _, err := os.Stat(filepath.Join(marks, name)); err != nil {
			t.Errorf("plain git status did not run %s: the test repository does not test it", name)
		}
	}
}
