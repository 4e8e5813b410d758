package scratch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: the tests Run calls make their temporary files in a folder of
// Memory's, when there is one, which is gone after them; Lasting is the
// temporary folder from before, and the environment is as it was after.
func TestRun(t *testing.T) {
	before, lasting := os.Getenv("TMPDIR"), os.TempDir()
	var inside, tempDir string
	code := Run(func() int {
		inside = os.TempDir()
		if Lasting() != lasting {
			t.Errorf("Lasting in Run is %s, want %s", Lasting(), lasting)
		}
		var err error
		if tempDir, err = os.MkdirTemp(os.Getenv("GOTMPDIR"), "t"); err != nil {
			t.Fatal(err)
		}
		return 3
	})
	if code != 3 {
		t.Errorf("Run returned %d, want what the tests returned, 3", code)
	}
	if Memory() == "" {
		if inside != lasting {
			t.Errorf("without memory the temporary folder was %s, want %s", inside, lasting)
		}
		os.RemoveAll(tempDir)
		return
	}
	if filepath.Dir(inside) != Memory() || !strings.HasPrefix(tempDir, inside+string(filepath.Separator)) {
		t.Errorf("the temporary folder was %s (t.TempDir's in %s), want a folder in %s", inside, tempDir, Memory())
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Errorf("the folder %s is left after the tests: %v", inside, err)
	}
	if os.Getenv("TMPDIR") != before || Lasting() != lasting {
		t.Errorf("after Run TMPDIR is %q and Lasting %s, want %q and %s", os.Getenv("TMPDIR"), Lasting(), before, lasting)
	}
}
