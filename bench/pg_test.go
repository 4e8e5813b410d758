package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// createDatabase creates a fresh database on pg and returns its URL.
func createDatabase(b *testing.B, pg *testpostgres.Cluster, name string) string {
	b.Helper()
	db, err := sql.Open("pgx", pg.URL("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		b.Fatal(err)
	}
	return pg.URL(name)
}

// clusterCPU is the CPU time a cluster has spent so far, given its
// postmaster's pid: the postmaster's own and that of the backends it has
// reaped (utime, stime, cutime, cstime of its /proc/PID/stat), and that of
// its live children (background workers and the backends still
// connected). Every process of the cluster is the postmaster or its
// child, so the difference of two readings is the cluster's CPU between
// them.
func clusterCPU(postmaster int) time.Duration {
	total := procCPU(postmaster, true)
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		f := procStat(p)
		if len(f) > 15 && f[1] == strconv.Itoa(postmaster) {
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
