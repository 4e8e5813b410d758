package testpostgres

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readyEnv names the file that Main writes once its cluster accepts
// connections: empty, or the reason it could not start. Schema waits for it.
const readyEnv = "PROMPTSMITH_TEST_POSTGRES_READY"

// Main runs a package's tests (m.Run) with a PostgreSQL to test against:
// the one Env names or, when Env is unset and Debian's server binaries are
// installed (/usr/lib/postgresql/<version>/bin; .ci/run installs them), a
// throwaway cluster of the test process's own, in a temporary folder on a
// free loopback port. The cluster starts while the first tests run (Schema
// waits for it), and is stopped and removed when they end. Call it from
// TestMain: os.Exit(testpostgres.Main(m)).
func Main(m *testing.M) int {
	if os.Getenv(Env) != "" {
		return m.Run()
	}
	bin := Binaries()
	if bin == "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "promptsmith-pg-")
	if err != nil {
		return m.Run()
	}
	defer os.RemoveAll(dir)
	c := &cluster{bin: bin, dir: dir}
	if c.port, err = freePort(); err != nil {
		return m.Run()
	}
	ready := filepath.Join(dir, "ready")
	os.Setenv(Env, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port))
	os.Setenv(readyEnv, ready)
	done := make(chan struct{})
	go func() {
		defer close(done)
		msg := ""
		if err := c.start(); err != nil {
			msg = err.Error()
		}
		tmp := ready + ".tmp"
		os.WriteFile(tmp, []byte(msg), 0o644)
		os.Rename(tmp, ready)
	}()
	code := m.Run()
	<-done
	c.pgctl("stop", "-m", "immediate").Run()
	return code
}

// Binaries is the folder of the newest PostgreSQL server binaries
// installed (Debian's layout), or "" when there are none.
func Binaries() string {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		return ""
	}
	slices.SortFunc(bins, func(a, b string) int { return version(a) - version(b) })
	return filepath.Dir(bins[len(bins)-1])
}

// version is the major version in a path /usr/lib/postgresql/<v>/bin/initdb.
func version(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}

// waitReady waits until Main's cluster accepts connections, or fails the
// test with why it could not start; without a cluster of Main's it returns
// at once.
func waitReady(t testing.TB) {
	t.Helper()
	ready := os.Getenv(readyEnv)
	if ready == "" {
		return
	}
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		msg, err := os.ReadFile(ready)
		if err == nil {
			if len(msg) > 0 {
				t.Fatalf("the throwaway PostgreSQL of the tests did not start: %s", msg)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the throwaway PostgreSQL of the tests did not start within 3 minutes")
		}
	}
}

// cluster is a throwaway PostgreSQL cluster in dir.
type cluster struct {
	bin, dir string
	port     int
	asUser   []string // runuser -u postgres -- when the tests run as root
}

func (c *cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(slices.Clone(c.asUser), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *cluster) pgctl(args ...string) *exec.Cmd {
	return c.command("pg_ctl", append([]string{"-D", c.data()}, args...)...)
}

// start initialises the cluster and starts it, durability off (a test's
// data need not survive a crash), and waits until it accepts connections.
func (c *cluster) start() error {
	if os.Geteuid() == 0 { // the server refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			return errors.New("running as root without a postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			return err
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	if out, err := c.command("initdb", "-D", c.data(), "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", c.port, c.dir)
	if out, err := c.pgctl("-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "120", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, strings.TrimSpace(string(log)))
	}
	return nil
}

// freePort is a loopback port no one listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
