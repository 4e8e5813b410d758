package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repository is where git finds the repository of the gathered directory,
// every path absolute with its symbolic links resolved.
type repository struct {
	dir       string // the gathered directory
	gitDir    string // .git, or a linked worktree's or a submodule's git directory
	commonDir string // the git directory a linked worktree shares; gitDir otherwise
	workTree  string // empty in a bare repository or inside a git directory
	config    []configEntry
}

// locate asks git where the repository of the directory is, as the probe
// will find it; nil when git finds none, and then the probe says so. (An
// older git than 2.31, which has no --path-format, prints something else
// and is refused.)
func (g gitCommand) locate(ctx context.Context) (*repository, error) {
	out, err := g.output(ctx, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--is-bare-repository")
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git rev-parse printed %q", out)
	}
	repo := &repository{dir: resolve(g.dir), gitDir: resolve(lines[0]), commonDir: resolve(lines[1])}
	if lines[2] != "true" {
		// Run inside a git directory, git shows no work tree: it fails.
		if top, err := g.output(ctx, "rev-parse", "--path-format=absolute", "--show-toplevel"); err == nil {
			repo.workTree = resolve(strings.TrimSuffix(string(top), "\n"))
		} else if !errors.As(err, &exit) {
			return nil, err
		}
	}
	if repo.config, err = g.readConfig(ctx, ""); err != nil {
		return nil, err
	}
	return repo, nil
}

// contain refuses a repository that makes git read outside the gathered
// directory, naming the setting that does: a work tree elsewhere
// (core.worktree, or a directory below the top of a work tree), or a git
// directory elsewhere (a .git file or link, a commondir file). A git
// directory outside is accepted when it names the directory as its work
// tree, which the directory's own files cannot forge: a linked worktree's
// (git worktree add), whose gitdir file points back at the directory's
// .git, or a submodule's, whose core.worktree is the directory.
func (g gitCommand) contain(repo *repository) error {
	dir := repo.dir
	worktree, hasWorktree := lastOf(repo.config, "core.worktree")
	if hasWorktree && !within(resolveFrom(repo.gitDir, worktree.value), dir) {
		return worktreeOutside(worktree, g.dir)
	}
	if repo.workTree != "" && !within(repo.workTree, dir) {
		if within(dir, repo.workTree) {
			return fmt.Errorf("refused: --dir is below the top of its repository's work tree, %s", repo.workTree)
		}
		return fmt.Errorf("refused: the repository's work tree %s is outside --dir", repo.workTree)
	}
	if within(repo.gitDir, dir) && within(repo.commonDir, dir) {
		return nil
	}
	if repo.workTree == dir && (hasWorktree || pointsBack(repo.gitDir, filepath.Join(dir, ".git"))) {
		return nil
	}
	dotGit := filepath.Join(g.dir, ".git")
	st, err := os.Lstat(dotGit)
	switch {
	case !within(repo.gitDir, dir) && err == nil && st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("refused: the .git link at %s points at %s, outside --dir", dotGit, repo.gitDir)
	case !within(repo.gitDir, dir) && err == nil && st.Mode().IsRegular():
		return fmt.Errorf("refused: the .git file at %s points at %s, outside --dir", dotGit, gitFileTarget(dotGit, repo.gitDir))
	case !within(repo.gitDir, dir) && within(dir, repo.gitDir):
		return fmt.Errorf("refused: --dir is inside the git directory %s", repo.gitDir)
	case !within(repo.gitDir, dir):
		return fmt.Errorf("refused: the repository's git directory %s is outside --dir", repo.gitDir)
	}
	return fmt.Errorf("refused: the commondir file in %s points at %s, outside --dir", repo.gitDir, repo.commonDir)
}

// worktreeOutside is the refusal of a core.worktree outside the gathered
// directory, naming the file that sets it; git names it relative to the
// directory it ran in, dir.
func worktreeOutside(e configEntry, dir string) error {
	file, ok := strings.CutPrefix(e.origin, "file:")
	if ok && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return fmt.Errorf("refused: core.worktree=%s in %s points outside --dir", e.value, file)
}

// resolveFrom resolves a path git reads relative to a git directory.
func resolveFrom(gitDir, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(gitDir, path)
	}
	return resolve(path)
}

// pointsBack reports whether gitDir is a linked worktree's git directory
// whose gitdir file names dotGit, the .git file of its work tree.
func pointsBack(gitDir, dotGit string) bool {
	data, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return false
	}
	return resolveFrom(gitDir, strings.TrimSpace(string(data))) == resolve(dotGit)
}

// gitFileTarget is the path a .git file names, as it names it, or the git
// directory git made of it.
func gitFileTarget(dotGit, gitDir string) string {
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return gitDir
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:"); ok && strings.TrimSpace(target) != "" {
		return strings.TrimSpace(target)
	}
	return gitDir
}

// output runs git and returns what it printed.
func (g gitCommand) output(ctx context.Context, args ...string) ([]byte, error) {
	return g.command(ctx, args...).Output()
}

// within reports whether path is dir or inside it; both are absolute, with
// their links resolved.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve makes a path absolute and resolves its symbolic links, those of
// the part that exists when the rest does not, so that paths compare by
// what they lead to.
func resolve(path string) string {
	path, _ = filepath.Abs(path)
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest)
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}
