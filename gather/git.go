package gather

import (
	"bytes"
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
// configuration (.git/config, the files it includes, the worktree's) and
// hooks of the project's choosing. Read as git reads it, that configuration
// can make a plain git status run a program: core.fsmonitor, a clean filter
// named by .gitattributes, a hook, gpg.program through log.showSignature, a
// lazy fetch of a partial clone through an ext:: remote. So every command
// probe whose program is git runs with all of that switched off, on its
// command line (where git gives it precedence over every file) and in its
// environment, which git passes on to the git processes it starts itself
// (submodules). What git prints is unchanged: none of these settings
// changes what status or log report.

// isGit reports whether a probe's program is git.
func isGit(program string) bool {
	base := filepath.Base(program)
	return base == "git" || base == "git.exe"
}

// gitSettings are set on the command line of every git probe.
func gitSettings() []string {
	return []string{
		"core.fsmonitor=false",     // a program git status runs to learn what changed
		"core.hooksPath=/dev/null", // the repository's hooks (post-index-change, ...)
		"core.pager=cat",
		"diff.external=",          // a program every diff runs
		"log.showSignature=false", // runs gpg.program for each signed commit git log shows
		"protocol.allow=never",    // a lazy fetch of a partial clone: a remote, or ext:: (a command)
		"core.sshCommand=false",
		"core.askPass=",
		"credential.helper=",
		"core.alternateRefsCommand=",
	}
}

// programKeys matches the settings that name a program for a driver the
// repository's .gitattributes picks by name: filter.<name>.clean (run by
// git status on a changed file), smudge and process, diff.<name>.command
// and textconv, merge.<name>.driver. The names are the repository's, so
// these are found by asking git, and emptied one by one.
const programKeys = `^(filter|diff|merge)\..+\.(clean|smudge|process|command|textconv|driver)$`

// safeGit returns the command line and environment a git probe runs with.
func (r runner) safeGit(ctx context.Context, argv []string) ([]string, []string) {
	env := gitEnv(os.Environ())
	var drivers []string // settings that name a program, to empty
	for _, key := range r.repositoryPrograms(ctx, env) {
		drivers = append(drivers, key+"=")
		if name, ok := strings.CutPrefix(key, "filter."); ok {
			// An emptied filter that is required would fail the command.
			drivers = append(drivers, "filter."+name[:strings.LastIndexByte(name, '.')]+".required=false")
		}
	}
	// Environment variables carry every setting, whatever its name; the
	// command line repeats those it can spell (no '=' in the name).
	env = appendConfig(env, drivers)
	out := []string{argv[0], "--no-pager", "--no-optional-locks"}
	for _, kv := range append(gitSettings(), drivers...) {
		if key := kv[:strings.LastIndexByte(kv, '=')]; !strings.Contains(key, "=") {
			out = append(out, "-c", kv)
		}
	}
	return append(out, argv[1:]...), env
}

// gitEnv is the environment of a git probe: the caller's, without the
// variables that name a program for git to run, and with the system
// configuration, prompts, optional locks and lazy fetches off.
func gitEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+5)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_ASKPASS", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT",
			"GIT_OPTIONAL_LOCKS", "GIT_NO_LAZY_FETCH":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1")
}

// appendConfig adds settings to the environment as git (2.31 and later)
// reads them, GIT_CONFIG_COUNT and GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n,
// after any the caller set.
func appendConfig(env []string, settings []string) []string {
	if len(settings) == 0 {
		return env
	}
	n := 0
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
			env = append(env[:i:i], env[i+1:]...)
			break
		}
	}
	for _, kv := range settings {
		i := strings.LastIndexByte(kv, '=')
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, kv[:i]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, kv[i+1:]))
		n++
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}

// repositoryPrograms lists the program settings (programKeys) that the
// repository's own configuration makes: those of the user's global
// configuration are the user's choice (git-lfs's filters) and are kept.
// Reading configuration runs nothing. Where git is too old to say where a
// setting comes from (before 2.26), every one is listed.
func (r runner) repositoryPrograms(ctx context.Context, env []string) []string {
	list := func(args ...string) ([]string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager", "config", "-z", "--name-only"}, args...)...)
		cmd.Dir, cmd.Env = r.dir, env
		cmd.WaitDelay = waitDelay
		ownProcessGroup(cmd)
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return nil, nil // no such setting
		}
		if err != nil {
			return nil, err
		}
		return strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00"), nil
	}
	fields, err := list("--show-scope", "--get-regexp", programKeys)
	if err != nil {
		keys, _ := list("--get-regexp", programKeys)
		return keys
	}
	var keys []string
	for i := 0; i+1 < len(fields); i += 2 {
		if scope := fields[i]; scope == "local" || scope == "worktree" {
			keys = append(keys, fields[i+1])
		}
	}
	return keys
}
