package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// configEntry is one setting of a repository's own configuration: its
// config file, the files that includes, or its worktree's.
type configEntry struct {
	origin     string // as git says it: "file:.git/config"
	key, value string
}

// configKeys matches the settings gather reads of a repository: those that
// name a program (overridden) or a submodule (ignored), and core.worktree.
const configKeys = `^(filter|diff|merge|alias|credential|protocol|gpg|submodule)\.|^core\.(worktree|attributesfile)$`

// maxModuleDirs bounds the walk of a repository's modules directories: a
// repository with more is refused rather than walked for long.
const maxModuleDirs = 4096

// readConfig returns the repository's own settings (configKeys), in the
// order git reads them, those of the user's global configuration left out:
// its drivers are the user's choice (git-lfs's filters) and are kept.
// Reading configuration runs nothing. gitDir names a submodule's git
// directory; empty, it is the repository git finds in the directory.
func (g gitCommand) readConfig(ctx context.Context, gitDir string) ([]configEntry, error) {
	var args []string
	if gitDir != "" {
		args = append(args, "--git-dir="+gitDir)
	}
	out, err := g.output(ctx, append(args, "config", "-z", "--show-scope", "--show-origin", "--get-regexp", configKeys)...)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil, nil // no such setting
	}
	if err != nil {
		return nil, fmt.Errorf("could not read the repository's configuration: %v%s", err, stderrOf(err))
	}
	fields := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00")
	var entries []configEntry
	for i := 0; i+2 < len(fields); i += 3 {
		if scope := fields[i]; scope != "local" && scope != "worktree" {
			continue
		}
		key, value, _ := strings.Cut(fields[i+2], "\n")
		entries = append(entries, configEntry{origin: fields[i+1], key: key, value: value})
	}
	return entries, nil
}

// repositorySettings are the settings the repository calls for: every
// program its own configuration names, and its submodules' configurations
// (under .git/modules, or in a submodule's own .git directory), overridden;
// every submodule that .gitmodules or a configuration names ignored,
// whatever they say of it. It refuses a submodule whose core.worktree
// points outside the directory.
func (g gitCommand) repositorySettings(ctx context.Context, repo *repository) ([]setting, error) {
	var out []setting
	names := map[string]bool{}
	add := func(entries []configEntry) {
		for _, e := range entries {
			out = append(out, overrides(e.key)...)
			if name, ok := submoduleName(e.key); ok {
				names[name] = true
			}
		}
	}
	add(repo.config)
	declared := g.gitmodules(ctx, repo)
	add(declared)
	modules, err := moduleGitDirs(ctx, repo.dir, repo.gitDir, repo.commonDir)
	if err != nil {
		return nil, err
	}
	for _, m := range append(modules, embeddedGitDirs(repo, declared)...) {
		entries, err := g.readConfig(ctx, m)
		if err != nil {
			return nil, err
		}
		if e, ok := lastOf(entries, "core.worktree"); ok && within(m, repo.dir) && !within(resolveFrom(m, e.value), repo.dir) {
			return nil, worktreeOutside(e, g.dir)
		}
		add(entries)
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		out = append(out, setting{"submodule." + name + ".ignore", "all"}, setting{"submodule." + name + ".active", "false"})
	}
	return out, nil
}

// overrides returns what a setting of the repository's own is overridden
// with, when it names a program or picks one. Of the drivers
// .gitattributes picks by name, filter.<name>.clean (run by git status on
// a changed file), smudge and process are emptied, which git takes as no
// filter (and made optional: a required filter would fail the command);
// diff.<name>.textconv becomes cat, which shows the file as it is;
// diff.<name>.command, diff.external and merge.<name>.driver are emptied,
// which git cannot run, so that a diff through one fails rather than runs
// it (git has no setting that unsets one: an empty diff.external for every
// repository would fail every git diff).
// Aliases and credential helpers are emptied, the signature programs are
// git's defaults, every protocol is never allowed (a lazy fetch), and
// there is no attributes file.
func overrides(key string) []setting {
	section, rest, _ := strings.Cut(key, ".")
	sub, name := "", rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	switch {
	case section == "filter" && sub != "" && (name == "clean" || name == "smudge" || name == "process"):
		return []setting{{key, ""}, {"filter." + sub + ".required", "false"}}
	case section == "diff" && sub != "" && name == "textconv":
		return []setting{{key, "cat"}} // the file as it is
	case key == "diff.external", section == "diff" && sub != "" && name == "command",
		section == "merge" && sub != "" && name == "driver",
		section == "alias",
		section == "credential" && name == "helper",
		key == "gpg.ssh.defaultkeycommand":
		return []setting{{key, ""}}
	case key == "gpg.program" || key == "gpg.openpgp.program":
		return []setting{{key, "gpg"}}
	case key == "gpg.x509.program":
		return []setting{{key, "gpgsm"}}
	case key == "gpg.ssh.program":
		return []setting{{key, "ssh-keygen"}}
	case section == "protocol" && sub != "" && name == "allow":
		return []setting{{key, "never"}}
	case key == "core.attributesfile":
		return []setting{{key, "/dev/null"}}
	}
	return nil
}

// submoduleName returns the name in submodule.<name>.<variable>.
func submoduleName(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "submodule.")
	i := strings.LastIndexByte(rest, '.')
	if !ok || i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// gitmodules returns the settings of .gitmodules, from each place git may
// read it: the work tree, else the index, else HEAD. Reading it runs
// nothing; one that cannot be read says nothing.
func (g gitCommand) gitmodules(ctx context.Context, repo *repository) []configEntry {
	var sources [][]string
	if repo.workTree != "" {
		file := filepath.Join(repo.workTree, ".gitmodules")
		if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() {
			sources = append(sources, []string{"--file", file})
		}
	}
	sources = append(sources, []string{"--blob", ":.gitmodules"}, []string{"--blob", "HEAD:.gitmodules"})
	var entries []configEntry
	for _, src := range sources {
		args := append([]string{"config", "-z"}, src...)
		out, err := g.output(ctx, append(args, "--get-regexp", `^submodule\.`)...)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00") {
			key, value, _ := strings.Cut(kv, "\n")
			entries = append(entries, configEntry{key: key, value: value})
		}
	}
	return entries
}

// embeddedGitDirs lists the git directories that submodules checked out in
// the work tree hold themselves (a .git directory, not a .git file into
// .git/modules), at the paths .gitmodules gives them.
func embeddedGitDirs(repo *repository, gitmodules []configEntry) []string {
	var dirs []string
	for _, e := range gitmodules {
		if !strings.HasPrefix(e.key, "submodule.") || !strings.HasSuffix(e.key, ".path") || repo.workTree == "" {
			continue
		}
		d := filepath.Join(repo.workTree, e.value, ".git")
		if st, err := os.Lstat(d); err == nil && st.IsDir() && within(resolve(d), repo.dir) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// moduleGitDirs lists the git directories of the submodules under the
// modules directories of the given git directories, nested ones too. A
// submodule's name may hold slashes, so a directory that is not a git
// directory (it has no config file) is looked into; in one that is, only
// its own modules directory is. Every directory is taken where its links
// lead, and left alone unless that is inside dir or inside the git
// directory whose modules it is: a link (.git/modules/x -> /) cannot make
// the walk read the configuration of directories elsewhere.
func moduleGitDirs(ctx context.Context, dir string, gitDirs ...string) ([]string, error) {
	type walk struct{ path, gitDir string }
	var todo []walk
	var found []string
	for _, d := range slices.Compact(gitDirs) {
		todo = append(todo, walk{filepath.Join(d, "modules"), d})
	}
	visited := map[string]bool{}
	for seen := 0; len(todo) > 0; seen++ {
		if seen >= maxModuleDirs {
			return nil, fmt.Errorf("refused: more than %d directories under %s", maxModuleDirs, filepath.Join(gitDirs[0], "modules"))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		d := resolve(w.path)
		if visited[d] || !within(d, dir) && !within(d, w.gitDir) {
			continue
		}
		visited[d] = true
		if st, err := os.Stat(filepath.Join(d, "config")); err == nil && st.Mode().IsRegular() {
			found = append(found, d)
			todo = append(todo, walk{filepath.Join(d, "modules"), w.gitDir})
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue // none, or not a directory
		}
		for _, e := range entries {
			todo = append(todo, walk{filepath.Join(d, e.Name()), w.gitDir})
		}
	}
	slices.Sort(found)
	return found, nil
}

// lastOf returns the last entry for key, the one git uses.
func lastOf(entries []configEntry, key string) (configEntry, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].key == key {
			return entries[i], true
		}
	}
	return configEntry{}, false
}

// stderrOf is the last line git printed on stderr before failing, if any.
func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if line := lastLine(string(exit.Stderr)); line != "" {
			return ": " + line
		}
	}
	return ""
}
