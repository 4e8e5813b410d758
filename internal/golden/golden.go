// Package golden compares test output with committed files under testdata/.
// Importing it registers the -update flag of `go test . -update`; `render
// test --update` rewrites the golden files of prompts without Go.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Updating reports whether the run rewrites golden files.
func Updating() bool { return *update }

// Check compares got with the file at path, printing a unified diff on a
// mismatch; with -update it writes got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update in this package to create it)", path, err)
	}
	if !bytes.Equal(want, got) {
		diff := udiff.Unified(path, "rendered", string(want), string(got))
		t.Errorf("output differs from %s (go test -update in this package accepts it):\n%s", path, diff)
	}
}
