// Package goldentest is the Go tests' side of golden files: it compares a
// test's output with a file under testdata/ and registers the -update flag
// of `go test . -update`, which rewrites them. Production code compares
// golden files through package golden, which never links the testing
// package into a binary.
package goldentest

import (
	"flag"
	"testing"

	"github.com/promptsmith/promptsmith/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Updating reports whether the run rewrites golden files.
func Updating() bool { return *update }

// Check compares got with the file at path, failing t with a unified diff
// on a mismatch; with -update it writes got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	status, diff, err := golden.Compare(path, got, *update)
	switch {
	case err != nil:
		t.Fatalf("%s: %v", path, err)
	case status == golden.Missing:
		t.Fatalf("%s is missing (run go test -update in this package to create it)", path)
	case status == golden.Differs:
		t.Errorf("output differs from %s (go test -update in this package accepts it):\n%s", path, diff)
	}
}
