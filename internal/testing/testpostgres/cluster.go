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

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/scratch"
)

// readyEnv names the file that Main writes once its cluster accepts
// connections: empty, or the reason it could not start. Schema waits for it.
const readyEnv = "PROMPTSMITH_TEST_POSTGRES_READY"

// Main runs a package's tests (m.Run), with their files in memory
// (scratch.Run), and a PostgreSQL to test against:
// the one Env names or, when Env is unset and Debian's server binaries are
// installed (/usr/lib/postgresql/<version>/bin; .ci/run installs them), a
// throwaway cluster of the test process's own, in a temporary folder
// (clusterFolder: shared memory where there is room) on a free loopback
// port. The cluster starts while the first tests run (Schema
// waits for it), and is stopped and removed when they end. Call it from
// TestMain: os.Exit(testpostgres.Main(m)).
func Main(m *testing.M) int {
	return scratch.Run(func() int { return withCluster(m) })
}

// withCluster runs m's tests with the throwaway cluster of Main, unless Env
// names a database or there are no server binaries.
func withCluster(m *testing.M) int {
	if os.Getenv(Env) != "" {
		return m.Run()
	}
	bin := Binaries()
	if bin == "" {
		return m.Run()
	}
	dir, err := clusterFolder("promptsmith-pg-", throwaway)
	if err != nil {
		return m.Run()
	}
	defer os.RemoveAll(dir)
	c, err := newCluster(bin, dir, throwaway)
	if err != nil {
		return m.Run()
	}
	ready := filepath.Join(dir, "ready")
	os.Setenv(Env, c.URL("postgres"))
	os.Setenv(readyEnv, ready)
	done := make(chan struct{})
	go func() {
		defer close(done)
		msg := ""
		if err := c.create(); err != nil {
			msg = err.Error()
		} else if err := c.start(); err != nil {
			msg = err.Error()
		}
		tmp := ready + ".tmp"
		os.WriteFile(tmp, []byte(msg), 0o644)
		os.Rename(tmp, ready)
	}()
	code := m.Run()
	<-done
	c.stopNow()
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

// Cluster is a PostgreSQL cluster of a test's or a benchmark's own, run
// from Debian's server binaries in a temporary folder on a free loopback
// port: one it may stop and start again, or whose durability or CPU it
// measures, which the shared one of Env must not be put through.
type Cluster struct {
	bin, dir string
	port     int
	durable  bool
	asUser   []string // runuser -u postgres -- when the process runs as root
}

// The durability of a cluster: a test's data need not survive a crash,
// while a benchmark of what a commit costs needs production's.
const (
	throwaway = false
	durable   = true
)

// StartCluster starts a cluster with durability off (a test's data need
// not survive a crash), and stops and removes it when tb ends. It skips
// tb when the server binaries are missing, but fails it under CI=true.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	return startCluster(tb, throwaway)
}

// StartDurableCluster starts a cluster that keeps the durability
// production has: fsync, synchronous commit and full page writes on, so
// that a commit waits for its WAL to reach the disk. It is for benchmarks
// of what a commit costs; otherwise it is StartCluster.
func StartDurableCluster(tb testing.TB) *Cluster {
	tb.Helper()
	return startCluster(tb, durable)
}

func startCluster(tb testing.TB, durability bool) *Cluster {
	tb.Helper()
	bin := Binaries()
	if bin == "" {
		fixture.Missing(tb, "PostgreSQL's server binaries are missing (Debian: apt-get install postgresql, in /usr/lib/postgresql/<version>/bin)")
	}
	dir, err := clusterFolder("promptsmith-pg-cluster-", durability)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	c, err := newCluster(bin, dir, durability)
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.create(); errors.Is(err, errNoPostgresUser) {
		fixture.Missing(tb, err.Error())
	} else if err != nil {
		tb.Fatal(err)
	}
	// Registered before the start, which may time out with the server up,
	// and after the folder's removal, so that it runs first.
	tb.Cleanup(c.stopNow)
	c.Start(tb)
	return c
}

// clusterFolder makes the folder of a new cluster: a throwaway one in
// scratch.Memory when there is one (a cluster's data folder is a thousand
// files, which on a busy disk cost initdb more than all its own work), a
// durable one, which must be on a disk, in scratch.Lasting. It is made
// there, not in the test's temporary folder, which the server's user could
// not enter.
func clusterFolder(pattern string, durability bool) (string, error) {
	if shm := scratch.Memory(); shm != "" && durability == throwaway {
		if dir, err := os.MkdirTemp(shm, pattern); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp(scratch.Lasting(), pattern)
}

// newCluster is a cluster to create in dir (an empty folder) on a free
// loopback port.
func newCluster(bin, dir string, durability bool) (*Cluster, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	return &Cluster{bin: bin, dir: dir, port: port, durable: durability}, nil
}

// errNoPostgresUser is why a process that runs as root cannot run the
// server, which refuses root.
var errNoPostgresUser = errors.New("running as root without a postgres user to run the server as (Debian's postgresql package creates it)")

// create initialises the cluster's data folder (initdb), as user postgres
// when the process runs as root, which the server refuses to run as. A
// throwaway cluster's is a copy of the template (template.go) when there
// is one, and initdb's leaves one when there is not.
func (c *Cluster) create() error {
	var owner *ids
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return errNoPostgresUser
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			return err
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
		owner = &ids{uid, gid}
	}
	if !c.durable && c.fromTemplate(owner) {
		return nil
	}
	args := []string{"-D", c.data(), "-A", "trust", "-U", "postgres"}
	if !c.durable {
		args = append(args, "--no-sync")
	}
	if out, err := c.command("initdb", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if !c.durable {
		c.saveTemplate(owner)
	}
	return nil
}

// URL is the postgres:// URL of database db on the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// Start starts the cluster again after Stop, and waits until it accepts
// connections.
func (c *Cluster) Start(tb testing.TB) {
	tb.Helper()
	if err := c.start(); err != nil {
		tb.Fatal(err)
	}
}

// Stop stops the cluster (a fast shutdown: every connection is closed)
// and waits until it is down.
func (c *Cluster) Stop(tb testing.TB) {
	tb.Helper()
	if out, err := c.pgctl("-w", "-t", "120", "-m", "fast", "stop").CombinedOutput(); err != nil {
		tb.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// PID is the postmaster's process id: every process of the cluster is it
// or its child, which is how a benchmark counts the cluster's CPU.
func (c *Cluster) PID(tb testing.TB) int {
	tb.Helper()
	pidFile, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		tb.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	if err != nil {
		tb.Fatalf("postmaster.pid: %v", err)
	}
	return pid
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(slices.Clone(c.asUser), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *Cluster) pgctl(args ...string) *exec.Cmd {
	return c.command("pg_ctl", append([]string{"-D", c.data()}, args...)...)
}

// start starts the server and waits until it accepts connections; a
// throwaway cluster runs with durability off and room for the
// connections of tests run in parallel.
func (c *Cluster) start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", c.port, c.dir)
	if c.durable {
		opts += " -c max_connections=100"
	} else {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
	}
	if out, err := c.pgctl("-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "120", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, strings.TrimSpace(string(log)))
	}
	return nil
}

// stopNow stops the server at once, without waiting for a checkpoint: the
// cluster is thrown away.
func (c *Cluster) stopNow() { c.pgctl("stop", "-m", "immediate").Run() }

// FreePort is a loopback port no one listens on now: for a cluster, a
// pooler in front of one, or a client that must find nobody there.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
