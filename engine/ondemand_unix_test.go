//go:build unix

package engine

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe in a working copy is refused before any file is read,
// read at once or on demand: reading it would never end.
func TestANamedPipeIsRefusedBeforeReading(t *testing.T) {
	t.Parallel()
	dir := smallCopy(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "templates", "note", "x.md.tmpl"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := LoadDir(dir); err == nil || !strings.Contains(err.Error(), "x.md.tmpl") || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("LoadDir = %v, want the named pipe refused", err)
	}
	lib, err := LoadDir(dir, OnDemand())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Variant("note"); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("Variant(note) on demand = %v, want the named pipe refused", err)
	}
}
