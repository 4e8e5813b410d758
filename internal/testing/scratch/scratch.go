// Package scratch puts the files a package's tests make in memory.
//
// The tests make thousands of files: working copies of libraries, git
// repositories, a browser's profile, PostgreSQL clusters. On a disk each
// new file costs the kernel far more than on a tmpfs (0.6-1 ms of system
// time on ext4 on a virtual disk, against 10 µs in /dev/shm), which made
// making files most of what several packages' tests cost. Where there is
// no tmpfs with room the tests use the temporary folder as before.
package scratch

import (
	"os"
	"testing"
)

// lastingEnv names the temporary folder that Run replaced, for Lasting.
const lastingEnv = "PROMPTSMITH_TEST_LASTING_TMPDIR"

// Main runs m's tests with their files in memory (Run). Call it from
// TestMain: os.Exit(scratch.Main(m)).
func Main(m *testing.M) int { return Run(m.Run) }

// Run calls tests, a package's tests, with the temporary folder (TMPDIR,
// and GOTMPDIR, where t.TempDir makes its folders) a new folder in
// Memory, which it removes after them; the processes the tests start
// inherit it. Without Memory it just calls tests.
func Run(tests func() int) int {
	shm := Memory()
	if shm == "" {
		return tests()
	}
	dir, err := os.MkdirTemp(shm, "promptsmith-test-")
	if err != nil {
		return tests()
	}
	defer os.RemoveAll(dir)
	lasting := Lasting()
	for name, value := range map[string]string{"TMPDIR": dir, "GOTMPDIR": dir, lastingEnv: lasting} {
		if old, ok := os.LookupEnv(name); ok {
			defer os.Setenv(name, old)
		} else {
			defer os.Unsetenv(name)
		}
		os.Setenv(name, value)
	}
	return tests()
}

// Lasting is the temporary folder that outlives the test process: the one
// Run replaced, or os.TempDir. What the tests keep from one run to the next
// goes there (testpostgres's template cluster), and what must be on a disk
// (a cluster whose commits are measured).
func Lasting() string {
	if dir := os.Getenv(lastingEnv); dir != "" {
		return dir
	}
	return os.TempDir()
}
