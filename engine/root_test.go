package engine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// A folder without a library is a usage error that keeps the cause: a
// caller can tell a missing folder (errors.Is fs.ErrNotExist) from others.
func TestLoadDirOfNoLibraryKeepsTheCause(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "absent")} {
		_, err := LoadDir(dir)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("LoadDir(%s) = %v, want an error wrapping fs.ErrNotExist", dir, err)
		}
		if e := AsError(err); e.Kind != KindUsage || e.Position != dir {
			t.Errorf("LoadDir(%s): kind %s at %q, want usage at the folder", dir, e.Kind, e.Position)
		}
	}
}
