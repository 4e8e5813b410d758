//go:build !unix

package gather

import "os/exec"

// ownProcessGroup does nothing where there are no process groups: a timeout
// kills the command's own process, and WaitDelay closes the pipes that its
// children may still hold.
func ownProcessGroup(cmd *exec.Cmd) {}
