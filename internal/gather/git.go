package gather

import (
	"context"
	"os/exec"
	"path/filepath"

	"github.com/promptsmith/promptsmith/internal/gitsafe"
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

// gitCommand makes git processes for one probe: gitsafe's, in the
// gathered directory, each in a process group of its own, so that a
// timeout kills whatever it started.
type gitCommand struct{ gitsafe.Git }

// command is the one place a probe's git process is made (see
// gitsafe.Git.Command).
func (g gitCommand) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := g.Git.Command(ctx, args...)
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	return cmd
}

// gitFor returns the git a probe runs: with the fixed settings, and those
// the repository in the gathered directory calls for (its drivers emptied,
// its submodules ignored), or an error that says why the repository is
// refused. Outside a repository git runs with the fixed settings, and says
// itself what it makes of that.
func (r runner) gitFor(ctx context.Context, program string) (gitCommand, error) {
	g := gitCommand{gitsafe.New(program, r.dir)}
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
	g.Settings = append(g.Settings, more...)
	return g, nil
}
