package main

import (
	"os"
	"syscall"
	"testing"
)

// dirChanges receives when a file is created in dir, or renamed into it,
// from now until the test ends: the tests that wait for a process to make
// a file block on it instead of reading the folder over and over. It holds
// one pending change; a test looks at the folder again after each. Where
// the folder cannot be watched, the channel is closed: those tests spin.
func dirChanges(t *testing.T, dir string) <-chan struct{} {
	t.Helper()
	changed := make(chan struct{}, 1)
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		close(changed)
		return changed
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_MOVED_TO); err != nil {
		syscall.Close(fd)
		close(changed)
		return changed
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: Close ends a Read
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { f.Close() })
	return changed
}
