package gather

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An alternates file that cannot be read refuses the repository with an
// error that keeps why, for errors.Is.
func TestUnreadableAlternatesKeepTheCause(t *testing.T) {
	dir := t.TempDir()
	gitDir := filepath.Join(dir, ".git")
	info := filepath.Join(gitDir, "objects", "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		t.Fatal(err)
	}
	// A link to itself: stat fails with ELOOP, whoever runs the test.
	if err := os.Symlink("alternates", filepath.Join(info, "alternates")); err != nil {
		t.Fatal(err)
	}
	err := objectsOutside(dir, gitDir)
	if !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("err = %v, want one wrapping ELOOP", err)
	}
	if !strings.Contains(err.Error(), "objects/info/alternates in "+gitDir) {
		t.Errorf("%v does not name the file", err)
	}
}
