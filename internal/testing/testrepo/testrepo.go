// Package testrepo makes throwaway git repositories for tests of what is
// gathered from a project.
package testrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git repository in a temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
}

// New initializes an empty repository, or skips the test without git.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	// Without git's template: its sample hooks and other files, a score
	// a repository, were most of the files the tests' repositories made.
	// Its folders stay, for the tests that put a hook or an info file
	// there.
	r.Git("init", "-q", "--template=")
	for _, dir := range []string{"hooks", "info"} {
		if err := os.Mkdir(filepath.Join(r.Dir, ".git", dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// Git runs a git command in the repository with a fixed identity.
func (r *Repo) Git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Write writes a file of the repository.
func (r *Repo) Write(name, text string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.Dir, name), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Commit writes files, given as name and text pairs, adds them and commits
// them with message.
func (r *Repo) Commit(message string, files ...string) {
	r.t.Helper()
	names := []string{"add"}
	for i := 0; i+1 < len(files); i += 2 {
		r.Write(files[i], files[i+1])
		names = append(names, files[i])
	}
	r.Git(names...)
	r.Git("commit", "-q", "-m", message)
}

// RevParse is the commit git says ref names in the repository.
func (r *Repo) RevParse(ref string) string {
	r.t.Helper()
	out, err := exec.Command("git", "-C", r.Dir, "rev-parse", ref+"^{commit}").Output()
	if err != nil {
		r.t.Fatalf("git rev-parse %s: %v", ref, err)
	}
	return strings.TrimSpace(string(out))
}
