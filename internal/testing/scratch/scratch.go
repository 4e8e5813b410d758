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
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// folderPrefix starts the name of every folder Run makes, followed by the
// process's id, so that a later run can tell a folder whose process died.
const folderPrefix = "promptsmith-test-"

// lastingEnv names the temporary folder that Run replaced, for Lasting.
const lastingEnv = "PROMPTSMITH_TEST_LASTING_TMPDIR"

// Main runs m's tests with their files in memory (Run). Call it from
// TestMain: os.Exit(scratch.Main(m)).
func Main(m *testing.M) int { return Run(m.Run) }

// Run calls tests, a package's tests, with the temporary folder (TMPDIR,
// and GOTMPDIR, where t.TempDir makes its folders) a new folder in
// Memory, which it removes after them; the processes the tests start
// inherit it. Without Memory it just calls tests. It first removes the
// folders of test processes that are gone: a test binary that is killed
// (a timeout, ^C) leaves its folder in memory, and memory is not cleared
// as a disk's temporary folder is at boot.
func Run(tests func() int) int {
	shm := Memory()
	if shm == "" {
		return tests()
	}
	sweep(shm)
	dir, err := os.MkdirTemp(shm, folderPrefix+strconv.Itoa(os.Getpid())+"-")
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

// sweep removes the folders in shm that Run made for processes no longer
// running. A folder of a live process, or of no process it can tell, stays.
func sweep(shm string) {
	entries, err := os.ReadDir(shm)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), folderPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		if pid, err := strconv.Atoi(pidText); ok && err == nil && pid > 0 && !running(pid) {
			os.RemoveAll(filepath.Join(shm, e.Name()))
		}
	}
}
