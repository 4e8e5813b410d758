package scratch

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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

// TestSweep: the folders of test processes that are gone are removed; a
// live process's folder, and anything not named as Run names its folders,
// stay.
func TestSweep(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Memory, and so the sweep, is Linux's only")
	}
	dir := t.TempDir()
	const gone = 1 << 30 // above any pid_max: no such process
	own := strconv.Itoa(os.Getpid())
	names := map[string]bool{ // name: stays
		folderPrefix + strconv.Itoa(gone) + "-123": false,
		folderPrefix + own + "-456":                true,
		folderPrefix + "1-789":                     true, // init runs
		folderPrefix + "789":                       true, // no pid: not Run's
		folderPrefix + "x-1":                       true,
		"other-" + strconv.Itoa(gone) + "-1":       true,
	}
	for name := range names {
		if err := os.MkdirAll(filepath.Join(dir, name, "cluster"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweep(dir)
	for name, stays := range names {
		_, err := os.Stat(filepath.Join(dir, name))
		if stays != (err == nil) {
			t.Errorf("%s: after the sweep, stat says %v; want it kept: %v", name, err, stays)
		}
	}
}
