package gitsafe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ConfigEntry is one setting of a repository's own configuration: its
// config file, the files that includes, or its worktree's.
type ConfigEntry struct {
	Origin     string // as git says it: "file:.git/config"
	Key, Value string
}

// ConfigKeys matches the settings a repository's configuration is read
// for: those that name a program (see Overrides) or a submodule, and
// core.worktree.
const ConfigKeys = `^(filter|diff|merge|alias|credential|protocol|gpg|submodule)\.|^core\.(worktree|attributesfile)$`

// ReadConfig returns the repository's own settings (ConfigKeys), in the
// order git reads them, those of the user's global configuration left out:
// its drivers are the user's choice (git-lfs's filters) and are kept.
// Reading configuration runs nothing. gitDir names a submodule's git
// directory; empty, it is the repository git finds in the directory.
func (g Git) ReadConfig(ctx context.Context, gitDir string) ([]ConfigEntry, error) {
	var args []string
	if gitDir != "" {
		args = append(args, "--git-dir="+gitDir)
	}
	out, err := g.Output(ctx, append(args, "config", "-z", "--show-scope", "--show-origin", "--get-regexp", ConfigKeys)...)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil, nil // no such setting
	}
	if err != nil {
		return nil, fmt.Errorf("could not read the repository's configuration: %w%s", err, Stderr(err))
	}
	fields := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00")
	var entries []ConfigEntry
	for i := 0; i+2 < len(fields); i += 3 {
		if scope := fields[i]; scope != "local" && scope != "worktree" {
			continue
		}
		key, value, _ := strings.Cut(fields[i+2], "\n")
		entries = append(entries, ConfigEntry{Origin: fields[i+1], Key: key, Value: value})
	}
	return entries, nil
}

// Guarded returns g with the settings of the repository it runs in added:
// every program the repository's own configuration names overridden
// (Overrides). Its submodules are not read: commands that look into
// submodules need more (package gather does that).
func (g Git) Guarded(ctx context.Context) (Git, error) {
	entries, err := g.ReadConfig(ctx, "")
	if err != nil {
		return g, err
	}
	g.Settings = append([]Setting(nil), g.Settings...)
	for _, e := range entries {
		g.Settings = append(g.Settings, Overrides(e.Key)...)
	}
	return g, nil
}
