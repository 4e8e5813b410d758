package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/regular"
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
	repo := &repository{dir: resolve(g.Dir), gitDir: resolve(lines[0]), commonDir: resolve(lines[1])}
	if lines[2] != "true" {
		// Run inside a git directory, git shows no work tree: it fails.
		if top, err := g.output(ctx, "rev-parse", "--path-format=absolute", "--show-toplevel"); err == nil {
			repo.workTree = resolve(strings.TrimSuffix(string(top), "\n"))
		} else if !errors.As(err, &exit) {
			return nil, err
		}
	}
	if repo.config, err = g.ReadConfig(ctx, ""); err != nil {
		return nil, err
	}
	return repo, nil
}

// contain refuses a repository that makes git read outside the gathered
// directory, naming the setting that does: a work tree elsewhere
// (core.worktree, or a directory below the top of a work tree), a git
// directory elsewhere (a .git file or link, a commondir file), or objects
// elsewhere (an objects directory that is a link, objects/info/alternates;
// see objectsOutside). A git directory outside is accepted when it names
// the directory as its work tree, which the directory's own files cannot
// forge: a linked worktree's (git worktree add), whose gitdir file points
// back at the directory's .git, or a submodule's, whose core.worktree is
// the directory. A git directory inside cannot vouch for a common
// directory outside that way: its own gitdir file is the directory's.
func (g gitCommand) contain(repo *repository) error {
	dir := repo.dir
	worktree, hasWorktree := lastOf(repo.config, "core.worktree")
	if hasWorktree && !within(resolveFrom(repo.gitDir, worktree.Value), dir) {
		return worktreeOutside(worktree, g.Dir)
	}
	if repo.workTree != "" && !within(repo.workTree, dir) {
		if within(dir, repo.workTree) {
			return fmt.Errorf("refused: --dir is below the top of its repository's work tree, %s", repo.workTree)
		}
		return fmt.Errorf("refused: the repository's work tree %s is outside --dir", repo.workTree)
	}
	if within(repo.gitDir, dir) && within(repo.commonDir, dir) {
		return objectsOutside(dir, repo.gitDir, repo.commonDir)
	}
	if !within(repo.gitDir, dir) && repo.workTree == dir && (hasWorktree || pointsBack(repo.gitDir, filepath.Join(dir, ".git"))) {
		return nil // its objects are those of a repository outside, which vouches for the directory
	}
	dotGit := filepath.Join(g.Dir, ".git")
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

// maxObjectDirs bounds the object directories objectsOutside follows
// through objects/info/alternates, and maxAlternatesSize the size of an
// alternates file it reads: a repository with more is refused.
const (
	maxObjectDirs     = 64
	maxAlternatesSize = 64 << 10
)

// objectsOutside refuses a repository whose git objects are read from
// outside dir: an objects directory that is a link out of it, or an entry
// of objects/info/alternates (which git reads as more object directories,
// as a clone made with git clone --reference does) that names a directory
// outside it, relative entries resolved against the objects directory
// they are in, links resolved. The alternates of the object directories
// an alternates file names are followed too, as git follows them, up to
// maxObjectDirs directories. gitDirs are the git directory and the common
// directory, both inside dir.
func objectsOutside(dir string, gitDirs ...string) error {
	var todo []string
	for _, d := range slices.Compact(gitDirs) {
		objects := filepath.Join(d, "objects")
		if real := resolve(objects); !within(real, dir) {
			return fmt.Errorf("refused: the objects link at %s points at %s, outside --dir", objects, real)
		}
		todo = append(todo, resolve(objects))
	}
	seen := map[string]bool{}
	for len(todo) > 0 {
		objects := todo[0]
		todo = todo[1:]
		if seen[objects] {
			continue
		}
		if seen[objects] = true; len(seen) > maxObjectDirs {
			return fmt.Errorf("refused: objects/info/alternates in %s name more than %d object directories", gitDirs[0], maxObjectDirs)
		}
		file := filepath.Join(objects, "info", "alternates")
		name := "info/alternates in " + objects
		if filepath.Base(objects) == "objects" {
			name = "objects/info/alternates in " + filepath.Dir(objects)
		}
		data, err := readAlternates(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("refused: %s cannot be read: %w", name, err)
		}
		for _, entry := range alternateEntries(data) {
			if !filepath.IsAbs(entry) {
				entry = filepath.Join(objects, entry)
			}
			real := resolve(entry)
			if !within(real, dir) {
				return fmt.Errorf("refused: %s points at %s, outside --dir", name, real)
			}
			todo = append(todo, real)
		}
	}
	return nil
}

// readAlternates reads an alternates file, a regular file only (a FIFO
// could block), of at most maxAlternatesSize bytes.
func readAlternates(file string) ([]byte, error) {
	f, _, err := regular.OpenFrom(regular.Host{}, file, notRegular)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAlternatesSize+1))
	if err == nil && len(data) > maxAlternatesSize {
		err = fmt.Errorf("larger than %d bytes", maxAlternatesSize)
	}
	return data, err
}

// alternateEntries returns the object directories an alternates file
// names, as git reads them: one a line, a line that starts with # a
// comment, an empty one nothing, and one that starts with a double quote
// C-quoted, unless its quoting is broken, when it is read as it is. Git
// reads the file as a C string: nothing after a NUL byte.
func alternateEntries(data []byte) []string {
	var out []string
	rest, _, _ := strings.Cut(string(data), "\x00")
	for rest != "" {
		var entry string
		switch {
		case rest[0] == '#':
			_, rest, _ = strings.Cut(rest, "\n")
			continue
		case rest[0] == '"':
			if unquoted, after, ok := unquoteC(rest); ok {
				entry, rest = unquoted, after
				if rest != "" {
					rest = rest[1:] // what follows the closing quote, the newline as a rule
				}
				break
			}
			fallthrough
		default:
			entry, rest, _ = strings.Cut(rest, "\n")
		}
		if entry != "" {
			out = append(out, entry)
		}
	}
	return out
}

// unquoteC reads the C-quoted string at the start of s as git's
// unquote_c_style does: the string, what follows its closing quote, and
// false when the quoting is broken.
func unquoteC(s string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(s); {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			e := s[i+1]
			i += 2
			if v := strings.IndexByte("abfnrtv", e); v >= 0 {
				b.WriteByte("\a\b\f\n\r\t\v"[v])
				continue
			}
			switch {
			case e == '\\' || e == '"':
				b.WriteByte(e)
			case e >= '0' && e <= '3' && i+1 < len(s) && isOctal(s[i]) && isOctal(s[i+1]):
				b.WriteByte((e-'0')<<6 | (s[i]-'0')<<3 | (s[i+1] - '0'))
				i += 2
			default:
				return "", "", false
			}
		case 0:
			return "", "", false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", "", false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// worktreeOutside is the refusal of a core.worktree outside the gathered
// directory, naming the file that sets it; git names it relative to the
// directory it ran in, dir.
func worktreeOutside(e configEntry, dir string) error {
	file, ok := strings.CutPrefix(e.Origin, "file:")
	if ok && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return fmt.Errorf("refused: core.worktree=%s in %s points outside --dir", e.Value, file)
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
