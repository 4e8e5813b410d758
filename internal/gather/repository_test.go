package gather

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// secretRepo is a repository outside the gathered directory, every name in
// it and its commit message holding SECRET, for a test to look for.
func secretRepo(t *testing.T) string {
	t.Helper()
	repo := testrepo.New(t)
	repo.Commit("SECRET commit", "SECRET.txt", "SECRET\n")
	return repo.Dir
}

// secretDir is a directory outside the gathered one, holding a file whose
// name a listing of it would show.
func secretDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SECRET.txt"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stealHead points the repository in dir at the commit of another one,
// other, on a branch called stolen: git shows it only if it reads the
// other repository's objects.
func stealHead(t *testing.T, dir, other string) {
	t.Helper()
	head, err := runPlain(other, "git", "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(head, err)
	}
	writeFile(t, filepath.Join(dir, ".git", "refs", "heads", "stolen"), head+"\n")
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/stolen\n")
}

// TestGitProbesStayInsideTheDirectory: a .git file pointing at another
// repository, or core.worktree naming another directory, once made git
// status and git log read outside --dir (the listing of /root ended up in
// git_status); so did objects/info/alternates, or a link, naming another
// repository's objects (git log showed its commits). Such a repository is
// now refused, naming the setting; a linked worktree and a submodule,
// whose git directories are elsewhere but name the directory as their
// work tree, are not, nor is a repository that borrows the objects of
// another inside --dir.
func TestGitProbesStayInsideTheDirectory(t *testing.T) {
	cases := []struct {
		name string
		// setup returns the directory to gather from, and the refusal
		// expected, empty when git status and git log are to work.
		setup func(t *testing.T) (dir, refused string)
		env   map[string]string
	}{
		{"a .git file pointing at another repository", func(t *testing.T) (string, string) {
			other, dir := secretRepo(t), t.TempDir()
			writeFile(t, filepath.Join(dir, ".git"), "gitdir: "+other+"/.git\n")
			return dir, fmt.Sprintf("the .git file at %s/.git points at %s/.git, outside --dir", dir, other)
		}, nil},
		{"a .git link to another repository", func(t *testing.T) (string, string) {
			other, dir := secretRepo(t), t.TempDir()
			if err := os.Symlink(filepath.Join(other, ".git"), filepath.Join(dir, ".git")); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			return dir, fmt.Sprintf("the .git link at %s/.git points at %s, outside --dir", dir, resolve(filepath.Join(other, ".git")))
		}, nil},
		{"core.worktree in .git/config", func(t *testing.T) (string, string) {
			outside, repo := secretDir(t), testrepo.New(t)
			repo.Git("config", "core.worktree", outside)
			return repo.Dir, fmt.Sprintf("core.worktree=%s in %s/.git/config points outside --dir", outside, repo.Dir)
		}, nil},
		{"core.worktree in a file .git/config includes", func(t *testing.T) (string, string) {
			outside, repo := secretDir(t), testrepo.New(t)
			included := filepath.Join(t.TempDir(), "included")
			writeFile(t, included, "[core]\n\tworktree = "+outside+"\n")
			repo.Git("config", "include.path", included)
			return repo.Dir, fmt.Sprintf("core.worktree=%s in %s points outside --dir", outside, included)
		}, nil},
		{"core.worktree in a submodule's config", func(t *testing.T) (string, string) {
			outside, repo := secretDir(t), testrepo.New(t)
			addSubmodule(t, repo)
			config := filepath.Join(resolve(repo.Dir), ".git", "modules", "sub", "config")
			repo.Git("config", "--file", config, "core.worktree", outside)
			return repo.Dir, fmt.Sprintf("core.worktree=%s in %s points outside --dir", outside, config)
		}, nil},
		{"a commondir file pointing at another repository", func(t *testing.T) (string, string) {
			other, repo := secretRepo(t), testrepo.New(t)
			writeFile(t, filepath.Join(repo.Dir, ".git", "commondir"), other+"/.git\n")
			return repo.Dir, fmt.Sprintf("the commondir file in %s/.git points at %s/.git, outside --dir", resolve(repo.Dir), resolve(other))
		}, nil},
		{"a commondir file, with a gitdir file pointing back", func(t *testing.T) (string, string) {
			// A linked worktree's git directory names its .git file so; a
			// git directory inside --dir, which --dir's files make, cannot
			// vouch for a common directory outside that way.
			other, repo := secretRepo(t), testrepo.New(t)
			writeFile(t, filepath.Join(repo.Dir, ".git", "commondir"), other+"/.git\n")
			writeFile(t, filepath.Join(repo.Dir, ".git", "gitdir"), repo.Dir+"/.git\n")
			return repo.Dir, fmt.Sprintf("the commondir file in %s/.git points at %s/.git, outside --dir", resolve(repo.Dir), resolve(other))
		}, nil},
		{"objects/info/alternates pointing at another repository", func(t *testing.T) (string, string) {
			other, repo := secretRepo(t), testrepo.New(t)
			writeFile(t, filepath.Join(repo.Dir, ".git", "objects", "info", "alternates"), other+"/.git/objects\n")
			stealHead(t, repo.Dir, other)
			return repo.Dir, fmt.Sprintf("objects/info/alternates in %s/.git points at %s/.git/objects, outside --dir", resolve(repo.Dir), resolve(other))
		}, nil},
		{"objects/info/alternates naming another repository relative to it", func(t *testing.T) (string, string) {
			other, repo := secretRepo(t), testrepo.New(t)
			objects := filepath.Join(resolve(repo.Dir), ".git", "objects")
			rel, err := filepath.Rel(objects, filepath.Join(resolve(other), ".git", "objects"))
			if err != nil {
				t.Skip(err)
			}
			writeFile(t, filepath.Join(objects, "info", "alternates"), "# borrowed\n\n"+rel+"\n")
			stealHead(t, repo.Dir, other)
			return repo.Dir, fmt.Sprintf("objects/info/alternates in %s/.git points at %s/.git/objects, outside --dir", resolve(repo.Dir), resolve(other))
		}, nil},
		{"objects/info/alternates quoted", func(t *testing.T) (string, string) {
			other, repo := secretRepo(t), testrepo.New(t)
			quoted := strings.ReplaceAll(other, "/", `\057`) // C-quoted, octal
			writeFile(t, filepath.Join(repo.Dir, ".git", "objects", "info", "alternates"), `"`+quoted+`/.git/objects"`+"\n")
			stealHead(t, repo.Dir, other)
			return repo.Dir, fmt.Sprintf("objects/info/alternates in %s/.git points at %s/.git/objects, outside --dir", resolve(repo.Dir), resolve(other))
		}, nil},
		{"the alternates of objects/info/alternates", func(t *testing.T) (string, string) {
			// A repository inside --dir whose objects the repository
			// borrows, and which borrows those of one outside.
			other, repo := secretRepo(t), testrepo.New(t)
			inner := filepath.Join(repo.Dir, ".git", "cache.git")
			if out, err := runPlain(repo.Dir, "git", "init", "-q", "--bare", inner); err != nil {
				t.Fatal(out, err)
			}
			writeFile(t, filepath.Join(inner, "objects", "info", "alternates"), other+"/.git/objects\n")
			writeFile(t, filepath.Join(repo.Dir, ".git", "objects", "info", "alternates"), "../cache.git/objects\n")
			stealHead(t, repo.Dir, other)
			return repo.Dir, fmt.Sprintf("objects/info/alternates in %s points at %s/.git/objects, outside --dir", resolve(inner), resolve(other))
		}, nil},
		{"a .git/objects link to another repository's", func(t *testing.T) (string, string) {
			other, repo := secretRepo(t), testrepo.New(t)
			objects := filepath.Join(repo.Dir, ".git", "objects")
			if err := os.RemoveAll(objects); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(other, ".git", "objects"), objects); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			stealHead(t, repo.Dir, other)
			return repo.Dir, fmt.Sprintf("the objects link at %s/.git/objects points at %s/.git/objects, outside --dir", resolve(repo.Dir), resolve(other))
		}, nil},
		{"a directory below the top of a work tree", func(t *testing.T) (string, string) {
			dir := secretRepo(t)
			writeFile(t, filepath.Join(dir, "below", "b.txt"), "b\n")
			return filepath.Join(dir, "below"), fmt.Sprintf("--dir is below the top of its repository's work tree, %s", resolve(dir))
		}, nil},
		{"the caller's GIT_DIR and GIT_WORK_TREE", func(t *testing.T) (string, string) {
			return gitRepo(t), ""
		}, map[string]string{"GIT_DIR": "OTHER/.git", "GIT_WORK_TREE": "OUTSIDE"}},
		{"a linked worktree", func(t *testing.T) (string, string) {
			repo := testrepo.New(t)
			repo.Commit("Add a.txt", "a.txt", "one\n")
			wt := filepath.Join(t.TempDir(), "wt")
			repo.Git("worktree", "add", "-q", wt)
			writeFile(t, filepath.Join(wt, "a.txt"), "two\n")
			return wt, ""
		}, nil},
		{"a submodule's checkout", func(t *testing.T) (string, string) {
			repo := testrepo.New(t)
			addSubmodule(t, repo)
			writeFile(t, filepath.Join(repo.Dir, "sub", "s.txt"), "two\n")
			return filepath.Join(repo.Dir, "sub"), ""
		}, nil},
		{"objects/info/alternates naming objects inside --dir", func(t *testing.T) (string, string) {
			// What git clone --reference leaves, the reference kept inside
			// --dir (and out of git status): the repository's own objects
			// are only those the reference lacks, here none.
			src := testrepo.New(t)
			src.Commit("Add a.txt", "a.txt", "one\n")
			dir := t.TempDir()
			for _, argv := range [][]string{
				{"git", "clone", "-q", src.Dir, dir},
				{"git", "clone", "-q", "--bare", src.Dir, filepath.Join(dir, ".cache", "mirror.git")},
			} {
				if out, err := runPlain(dir, argv...); err != nil {
					t.Fatal(argv, out, err)
				}
			}
			writeFile(t, filepath.Join(dir, ".git", "info", "exclude"), ".cache/\n")
			writeFile(t, filepath.Join(dir, ".git", "objects", "info", "alternates"), "../../.cache/mirror.git/objects\n")
			if out, err := runPlain(dir, "git", "repack", "-q", "-a", "-d", "-l"); err != nil {
				t.Fatal(out, err)
			}
			writeFile(t, filepath.Join(dir, "a.txt"), "two\n")
			return dir, ""
		}, nil},
		{"a .git/modules link to /", func(t *testing.T) (string, string) {
			dir := gitRepo(t)
			if err := os.Symlink("/", filepath.Join(dir, ".git", "modules")); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			return dir, ""
		}, nil},
		{"a directory reached through a link", func(t *testing.T) (string, string) {
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(gitRepo(t), link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			return link, ""
		}, nil},
	}
	probes := "  - {field: /environment/git_status, command: [git, status, --short], timeout: 10s}\n" +
		"  - {field: /environment/recent_commits, command: [git, log, --oneline], timeout: 10s}\n"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env == nil {
				t.Parallel()
			}
			dir, refused := c.setup(t)
			places := strings.NewReplacer("OTHER", secretRepo(t), "OUTSIDE", secretDir(t))
			for k, v := range c.env {
				t.Setenv(k, places.Replace(v))
			}
			found, warns := Run(context.Background(), hostVariant(t, probes), Options{Dir: dir, Now: fixedClock})
			for _, g := range found {
				if s, _ := g.Value.(string); strings.Contains(s, "SECRET") {
					t.Errorf("%s read outside the directory: %q", g.Field, s)
				}
			}
			if refused == "" {
				got := values(found)
				if len(warns) > 0 || got["/environment/git_status"] != " M a.txt" && got["/environment/git_status"] != " M s.txt" ||
					got["/environment/recent_commits"] == nil {
					t.Errorf("found %q, warnings %v", got, warns)
				}
				return
			}
			if len(found) != 0 || len(warns) != 2 {
				t.Fatalf("found %v, warnings %v; want both refused", found, warns)
			}
			for i, command := range []string{"git status --short", "git log --oneline"} {
				if want := command + ": refused: " + refused; warns[i].Reason != want {
					t.Errorf("warning\n got %q\nwant %q", warns[i].Reason, want)
				}
			}
		})
	}
}
