package gitsafe

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Git makes git processes in one directory with the package's settings.
type Git struct {
	Program  string
	Dir      string
	Env      []string  // the caller's environment, as Env leaves it
	Settings []Setting // later ones win
}

// New returns the git that Program names (git from PATH when empty),
// run in dir, with the fixed settings and the caller's environment as Env
// leaves it.
func New(program, dir string) Git {
	if program == "" {
		program = "git"
	}
	return Git{Program: program, Dir: dir, Env: Env(os.Environ()), Settings: Fixed()}
}

// waitDelay is how long a killed git's pipes may stay open, held by a
// process it started, before Wait gives up on them.
const waitDelay = time.Second

// Command is the one place a git process is made, so that none can run
// without the settings. Those git can take on its command line (no '=' in
// the key) go there, where they win over every configuration file and the
// caller's own -c; all of them go in the environment too (GIT_CONFIG_COUNT),
// which can spell any key, and which git passes on to the git processes it
// starts itself, in submodules as well. The process is killed when ctx
// ends.
func (g Git) Command(ctx context.Context, args ...string) *exec.Cmd {
	argv := []string{"--no-pager", "--no-optional-locks"}
	for _, s := range g.Settings {
		if !strings.Contains(s.Key, "=") {
			argv = append(argv, "-c", s.Key+"="+s.Value)
		}
	}
	cmd := exec.CommandContext(ctx, g.Program, append(argv, args...)...)
	cmd.Dir, cmd.Env = g.Dir, AppendConfig(g.Env, g.Settings)
	cmd.WaitDelay = waitDelay
	return cmd
}

// Output runs git and returns what it printed on stdout; a failure's
// *exec.ExitError holds what it printed on stderr.
func (g Git) Output(ctx context.Context, args ...string) ([]byte, error) {
	return g.Command(ctx, args...).Output()
}

// Stderr is the line git printed on stderr that says why it failed with
// err, after ": ", or nothing: its last "fatal:" or "error:" line, else
// its last line. A note may follow the reason: at a mount point git ends
// "not a git repository (or any parent up to mount point /mnt)" with
// "Stopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not
// set).", which alone would not say what is wrong.
func Stderr(err error) string {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(exit.Stderr)), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "fatal:") || strings.HasPrefix(l, "error:") {
			line = l
			break
		}
	}
	if line == "" {
		return ""
	}
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200])
	}
	return ": " + line
}
