//go:build unix

package reliability_test

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path, and reports whether it could.
func mkfifo(t *testing.T, path string) bool {
	t.Helper()
	return syscall.Mkfifo(path, 0o644) == nil
}
