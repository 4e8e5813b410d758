//go:build unix

package gather

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the command in a process group of its own, so that a
// timeout kills everything it started (a shell script's children too), not
// only the process itself.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
