package server_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// pgCluster is a PostgreSQL cluster of the test's own, run from Debian's
// binaries, that the test may stop and start again: the shared one of
// PROMPTSMITH_TEST_POSTGRES must stay up for the other tests.
type pgCluster struct {
	bin, dir string
	port     int
	asUser   []string // runuser -u postgres -- when the test runs as root
}

// newPGCluster initialises and starts a cluster in a temporary folder, on
// a free loopback port, and stops and removes it when the test ends. It
// skips the test when the binaries are missing, but not in CI.
func newPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		fixture.Missing(t, "PostgreSQL's server binaries are missing (Debian: apt-get install postgresql)")
	}
	slices.Sort(bins)
	c := &pgCluster{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "promptsmith-pg-test-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 { // the server refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	c.run(t, "initdb", "-D", c.data(), "-A", "trust", "-U", "postgres")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c.start(t)
	t.Cleanup(func() { c.pgctl("stop", "-m", "immediate").Run() })
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

// URL is the cluster's postgres database.
func (c *pgCluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

func (c *pgCluster) command(name string, args ...string) *exec.Cmd {
	argv := append(slices.Clone(c.asUser), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *pgCluster) run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func (c *pgCluster) pgctl(args ...string) *exec.Cmd {
	return c.command("pg_ctl", append([]string{"-D", c.data()}, args...)...)
}

// start starts the cluster and waits until it accepts connections.
func (c *pgCluster) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", c.port, c.dir)
	if out, err := c.pgctl("-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "120", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// stop stops the cluster at once, closing every connection.
func (c *pgCluster) stop(t *testing.T) {
	t.Helper()
	if out, err := c.pgctl("-w", "-t", "120", "-m", "fast", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}
