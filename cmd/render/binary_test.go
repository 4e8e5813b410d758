package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// The tests that need a real process (signals, a server other processes
// reach) run this test binary as the command: renderBinary links it as
// "render" in a folder of its own, and TestMain runs main when the process
// is started by that name. Building the command with go build took more
// time than all the tests that use it. Under the race detector, whose
// processes are several times slower, the command is built without it,
// once.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// asCommand is the name under which the test binary is the command.
const asCommand = "render"

// renderBinary links the test binary, once, as a file named render in a
// folder of its own and returns its path: run by that path (or from PATH
// by that name) it is the command. Under the race detector it builds the
// command there instead.
func renderBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "render-test-"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, asCommand)
		if runtime.GOOS == "windows" {
			binary.path += ".exe"
		}
		if raceDetector {
			binary.out, binary.err = exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
			return
		}
		exe, err := os.Executable()
		if err != nil {
			binary.err = err
			return
		}
		if os.Symlink(exe, binary.path) == nil {
			return
		}
		binary.err = copyExecutable(exe, binary.path)
	})
	if binary.err != nil {
		t.Fatalf("the command for the tests: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

// copyExecutable copies the executable file from to a new file to, where
// the system makes no symbolic links.
func copyExecutable(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// renderCommand is the built render run with args in a folder of no
// library working copy (the binary's own), so that it uses the embedded
// library, as the package's tests run in process do (workingcopy_test.go):
// from cmd/render it would find the repository's working copy.
func renderCommand(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, renderBinary(t), args...)
	cmd.Dir = binary.dir
	return cmd
}

// served is a render serve a test started, and the lines of its stderr.
type served struct {
	cmd   *exec.Cmd
	addr  string      // the host:port it serves on
	lines chan string // its stderr, after the line naming addr
}

// startServe runs the built render serve with --addr 127.0.0.1:0,
// --drain-delay 0 (args may give another) and args and returns once it
// serves. It is killed when the test ends, if it still
// runs. The tests stop it with SIGTERM, which Windows lacks: they skip there.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := renderCommand(t, ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--drain-delay", "0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	s := &served{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	s.addr = s.waitAddr(t)
	return s
}

// waitAddr reads the server's stderr up to its serving line, in either
// --log-format, and returns the host:port it names.
func (s *served) waitAddr(t *testing.T) string {
	t.Helper()
	for line := range s.lines {
		if i := strings.Index(line, "url=http://"); i >= 0 {
			return strings.Fields(line[i+len("url=http://"):])[0]
		}
		if i := strings.Index(line, `"url":"http://`); i >= 0 {
			rest := line[i+len(`"url":"http://`):]
			return rest[:strings.IndexByte(rest, '"')]
		}
	}
	t.Fatal("the server ended without saying where it serves")
	return ""
}

// waitLine reads the server's stderr up to a line holding prefix, and
// returns what follows the prefix.
func (s *served) waitLine(t *testing.T, prefix string) string {
	t.Helper()
	for line := range s.lines {
		if i := strings.Index(line, prefix); i >= 0 {
			return line[i+len(prefix):]
		}
	}
	t.Fatalf("the server ended without printing %q", prefix)
	return ""
}

// terminate sends the server SIGTERM.
func (s *served) terminate(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the server to exit, which must be with status 0.
func (s *served) wait(t *testing.T) {
	t.Helper()
	go func() {
		for range s.lines { // drain, so that the server never blocks on stderr
		}
	}()
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("render serve: %v", err)
	}
}

func TestMain(m *testing.M) {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == asCommand {
		main() // renderBinary's link: the command, not the tests
	}
	code := testpostgres.Main(m)
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}
