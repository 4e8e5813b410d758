package engine

import (
	"errors"
	"io/fs"
	"os"
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

// IsWorkingCopy wants templates/ with a variant and schemas/, both
// folders: a folder that lacks any of them is not a working copy.
func TestIsWorkingCopy(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		files []string
		want  bool
	}{
		"a variant and schemas": {[]string{"templates/note/prompt.yaml", "schemas/note.schema.json"}, true},
		"no schemas":            {[]string{"templates/note/prompt.yaml"}, false},
		"no variant":            {[]string{"templates/README.md", "schemas/note.schema.json"}, false},
		"schemas is a file":     {[]string{"templates/note/prompt.yaml", "schemas"}, false},
		"nothing":               {nil, false},
	} {
		dir := t.TempDir()
		for _, f := range c.files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := IsWorkingCopy(dir); got != c.want {
			t.Errorf("%s: IsWorkingCopy = %v, want %v", name, got, c.want)
		}
	}
}
