//go:build unix

package gather

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFileProbeRefusesAFIFO: an AGENTS.md that is a named pipe with no
// writer is refused at once. Opened for reading, it blocked forever.
func TestFileProbeRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "AGENTS.md"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	v := hostVariant(t, "  - {field: /instructions, file: AGENTS.md}\n")
	done := make(chan []Warning, 1)
	go func() {
		_, warns := Run(context.Background(), v, Options{Dir: dir, Now: fixedClock})
		done <- warns
	}()
	select {
	case warns := <-done:
		if len(warns) != 1 || warns[0].String() != "/instructions: AGENTS.md: not a regular file (a named pipe)" {
			t.Errorf("warnings %v", warns)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("gathering a FIFO did not end")
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err == nil {
		if _, err := readProjectFile(dir, "zero"); err == nil {
			t.Error("a link to a device was read")
		}
	}
}
