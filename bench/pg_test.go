package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// pgCluster is a PostgreSQL cluster a benchmark starts itself, as .ci/run
// does: Debian's server binaries (/usr/lib/postgresql/<v>/bin), initdb into
// a temporary folder (as user postgres when the benchmark runs as root) and
// pg_ctl start on a free loopback port. Unlike the tests' throwaway
// cluster it keeps the durability production has: fsync, synchronous
// commit and full page writes on, so that a commit waits for its WAL to
// reach the disk.
type pgCluster struct {
	bin, dir string
	port     int
	asUser   []string
}

// startPostgres starts a cluster and stops it when the benchmark ends. It
// skips without the server binaries, and fails under CI=true.
func startPostgres(b *testing.B) *pgCluster {
	b.Helper()
	bin := testpostgres.Binaries()
	if bin == "" {
		fixture.Missing(b, "PostgreSQL's server binaries are not installed (Debian's postgresql: /usr/lib/postgresql/<version>/bin)")
	}
	dir, err := os.MkdirTemp("", "promptsmith-bench-pg-")
	if err != nil {
		b.Fatal(err)
	}
	c := &pgCluster{bin: bin, dir: dir}
	b.Cleanup(func() {
		c.pgctl("stop", "-m", "immediate").Run()
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 { // the server refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			b.Fatal("running as root without a postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			b.Fatal(err)
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	if out, err := c.command("initdb", "-D", c.data(), "-A", "trust", "-U", "postgres").CombinedOutput(); err != nil {
		b.Fatalf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=100", c.port, dir)
	if out, err := c.pgctl("-l", filepath.Join(dir, "server.log"), "-w", "-t", "120", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		b.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

func (c *pgCluster) command(name string, args ...string) *exec.Cmd {
	argv := append(append([]string{}, c.asUser...), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *pgCluster) pgctl(args ...string) *exec.Cmd {
	return c.command("pg_ctl", append([]string{"-D", c.data()}, args...)...)
}

func (c *pgCluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// database creates a fresh database and returns its URL.
func (c *pgCluster) database(b *testing.B, name string) string {
	b.Helper()
	db, err := sql.Open("pgx", c.url("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		b.Fatal(err)
	}
	return c.url(name)
}

// cpu is the CPU time the cluster has spent so far: the postmaster's own
// and that of the backends it has reaped (utime, stime, cutime, cstime of
// its /proc/PID/stat), and that of its live children (background workers
// and the backends still connected). Every process of the cluster is the
// postmaster or its child, so the difference of two readings is the
// cluster's CPU between them.
func (c *pgCluster) cpu(b *testing.B) time.Duration {
	b.Helper()
	pidFile, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		b.Fatal(err)
	}
	master, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	if err != nil {
		b.Fatal(err)
	}
	total := procCPU(master, true)
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		f := procStat(p)
		if len(f) > 15 && f[1] == strconv.Itoa(master) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			total += procCPU(pid, false)
		}
	}
	return total
}

// procStat is the fields of a /proc/PID/stat after the command's name:
// field 0 is the state, 1 the parent's pid, 11 utime, 12 stime, 13 cutime
// and 14 cstime, in clock ticks.
func procStat(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// clockTick is USER_HZ, the unit of /proc's times: 100 on Linux.
const clockTick = 10 * time.Millisecond

// procCPU is the user and system time of process pid, with that of its
// reaped children when reaped is set.
func procCPU(pid int, reaped bool) time.Duration {
	f := procStat(fmt.Sprintf("/proc/%d/stat", pid))
	if len(f) < 15 {
		return 0
	}
	fields := []int{11, 12}
	if reaped {
		fields = append(fields, 13, 14)
	}
	var ticks int64
	for _, i := range fields {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * clockTick
}

// tableBytes is pg_total_relation_size (heap, indexes, TOAST and their
// free-space and visibility maps) summed over the tables of the public
// schema of the database at url, after a CHECKPOINT-free VACUUM so that
// dead tuples of the store's updates are not counted as live data's cost.
func tableBytes(b *testing.B, url string) (total int64, tables map[string]int64) {
	b.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		b.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT c.relname, pg_total_relation_size(c.oid)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	tables = map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			b.Fatal(err)
		}
		tables[name] = n
		total += n
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return total, tables
}
