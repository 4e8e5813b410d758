package gather

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/gitsafe"
)

// configEntry is one setting of a repository's own configuration.
type configEntry = gitsafe.ConfigEntry

// maxModuleDirs bounds the walk of a repository's modules directories: a
// repository with more is refused rather than walked for long.
const maxModuleDirs = 4096

// repositorySettings are the settings the repository calls for: every
// program its own configuration names, and its submodules' configurations
// (under .git/modules, or in a submodule's own .git directory), overridden;
// every submodule that .gitmodules or a configuration names ignored,
// whatever they say of it. It refuses a submodule whose core.worktree
// points outside the directory.
func (g gitCommand) repositorySettings(ctx context.Context, repo *repository) ([]gitsafe.Setting, error) {
	var out []gitsafe.Setting
	names := map[string]bool{}
	add := func(entries []configEntry) {
		for _, e := range entries {
			out = append(out, gitsafe.Overrides(e.Key)...)
			if name, ok := submoduleName(e.Key); ok {
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
		entries, err := g.ReadConfig(ctx, m)
		if err != nil {
			return nil, err
		}
		if e, ok := lastOf(entries, "core.worktree"); ok && within(m, repo.dir) && !within(resolveFrom(m, e.Value), repo.dir) {
			return nil, worktreeOutside(e, g.Dir)
		}
		add(entries)
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		out = append(out, gitsafe.Setting{Key: "submodule." + name + ".ignore", Value: "all"},
			gitsafe.Setting{Key: "submodule." + name + ".active", Value: "false"})
	}
	return out, nil
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
			entries = append(entries, configEntry{Key: key, Value: value})
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
		if !strings.HasPrefix(e.Key, "submodule.") || !strings.HasSuffix(e.Key, ".path") || repo.workTree == "" {
			continue
		}
		d := filepath.Join(repo.workTree, e.Value, ".git")
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
		if entries[i].Key == key {
			return entries[i], true
		}
	}
	return configEntry{}, false
}
