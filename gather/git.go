package gather

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// A git probe reads a repository that may be anyone's: --dir can be a
// checkout of a project nobody has reviewed, and its .git holds a
// configuration (.git/config, the files it includes, the worktree's, the
// submodules' under .git/modules) and hooks of the project's choosing. Read
// as git reads it, that configuration can make a plain git status run a
// program: core.fsmonitor, a clean filter named by .gitattributes, a hook,
// gpg.program through log.showSignature, a lazy fetch of a partial clone
// through an ext:: remote, and the same again in every submodule git status
// looks into. It can also point git at files outside --dir: a .git file or
// core.worktree naming another directory. So every git process gather
// starts, the probe's and those that look at the repository first, is made
// by gitCommand.command, with all of that switched off, and a repository
// that reaches outside --dir is refused before the probe runs. What git
// prints is unchanged, but for submodules, which are ignored, and for a
// diff through a driver of the repository's own (see overrides).

// isGit reports whether a probe's program is git.
func isGit(program string) bool {
	base := filepath.Base(program)
	return base == "git" || base == "git.exe"
}

// setting is one git configuration setting gather imposes.
type setting struct{ key, value string }

// gitCommand makes git processes for one probe: its program, in the
// gathered directory, with gather's settings.
type gitCommand struct {
	program  string
	dir      string
	env      []string  // the caller's environment, as gitEnv leaves it
	settings []setting // later ones win
}

// command is the one place a git process is made, so that none can run
// without the settings. Those git can take on its command line (no '=' in
// the key) go there, where they win over every configuration file and the
// caller's own -c; all of them go in the environment too (GIT_CONFIG_COUNT),
// which can spell any key, and which git passes on to the git processes it
// starts itself, in submodules as well.
func (g gitCommand) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := []string{"--no-pager", "--no-optional-locks"}
	for _, s := range g.settings {
		if !strings.Contains(s.key, "=") {
			argv = append(argv, "-c", s.key+"="+s.value)
		}
	}
	return newProcess(ctx, g.dir, appendConfig(g.env, g.settings), g.program, append(argv, args...)...)
}

// gitFor returns the git a probe runs: with the fixed settings, and those
// the repository in the gathered directory calls for (its drivers emptied,
// its submodules ignored), or an error that says why the repository is
// refused. Outside a repository git runs with the fixed settings, and says
// itself what it makes of that.
func (r runner) gitFor(ctx context.Context, program string) (gitCommand, error) {
	g := gitCommand{program: program, dir: r.dir, env: gitEnv(os.Environ()), settings: gitSettings()}
	repo, err := g.locate(ctx)
	if err != nil || repo == nil {
		return g, err
	}
	if err := g.contain(repo); err != nil {
		return g, err
	}
	more, err := g.repositorySettings(ctx, repo)
	if err != nil {
		return g, err
	}
	g.settings = append(g.settings, more...)
	return g, nil
}

// gitSettings are the settings of every git process, whatever the
// repository.
func gitSettings() []setting {
	return []setting{
		{"core.fsmonitor", "false"},     // a program git status runs to learn what changed
		{"core.hooksPath", "/dev/null"}, // the repository's hooks (post-index-change, ...)
		{"core.pager", "cat"},
		{"log.showSignature", "false"}, // runs gpg.program for each signed commit git log shows
		{"protocol.allow", "never"},    // a lazy fetch of a partial clone: a remote, or ext:: (a command)
		{"core.sshCommand", "false"},
		{"core.askPass", ""},
		{"credential.helper", ""},
		{"core.alternateRefsCommand", ""},
		// Submodules are never looked into: git status runs git status in
		// each, with the submodule's own configuration, and status.
		// submoduleSummary and diff.submodule=log|diff run more. A
		// .gitmodules or config that says otherwise for a submodule is
		// overruled by name (submoduleSettings).
		{"diff.ignoreSubmodules", "all"},
		{"submodule.recurse", "false"},
		{"status.submoduleSummary", "false"},
		{"diff.submodule", "short"},
		{"fetch.recurseSubmodules", "false"},
		{"gc.auto", "0"}, // no git gc --auto after a command
		{"maintenance.auto", "false"},
	}
}

// gitEnv is the environment of every git process: the caller's, without
// the variables that name a program for git to run or another repository
// to read (a caller that is itself a git hook has GIT_DIR set), and with
// the system configuration and attributes, prompts, optional locks and
// lazy fetches off. The caller's GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT
// are its own settings, and are kept.
func gitEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+5)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_ASKPASS",
			// git rev-parse --local-env-vars, but for the configuration
			"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
			"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
			"GIT_SHALLOW_FILE", "GIT_CONFIG", "GIT_NAMESPACE", "GIT_QUARANTINE_PATH",
			// set below
			"GIT_CONFIG_NOSYSTEM", "GIT_ATTR_NOSYSTEM", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_NO_LAZY_FETCH":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1")
}

// appendConfig returns env with settings added as git (2.31 and later)
// reads them, GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n,
// after any the caller set. env itself is left as it is.
func appendConfig(env []string, settings []setting) []string {
	out := make([]string, 0, len(env)+2*len(settings)+1)
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
			continue
		}
		out = append(out, kv)
	}
	for _, s := range settings {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, s.key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, s.value))
		n++
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}
