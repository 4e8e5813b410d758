package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The tests that need a real process (signals, a server other processes
// reach) share one build of the command per run of the package's tests.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// renderBinary builds the command once, on first use, and returns its path.
func renderBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "render-test-"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "render")
		binary.out, binary.err = exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("go build: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}
