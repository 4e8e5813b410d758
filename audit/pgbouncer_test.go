package audit_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	testfixture "github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// TestThroughPgBouncer: the store records, reads and verifies through
// PgBouncer in transaction mode, the pooling most PostgreSQL deployments
// put in front of the database, with its default settings: no startup
// parameter but those it tracks, and no prepared statement used past its
// transaction (a later transaction may run on another server connection).
// Debian's pgbouncer runs in front of the test database, on a database of
// the test's own (PgBouncer refuses search_path at startup).
func TestThroughPgBouncer(t *testing.T) {
	base := testpostgres.Database(t)
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		for _, p := range []string{"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"} {
			if _, err := os.Stat(p); err == nil {
				bin = p
			}
		}
	}
	if bin == "" {
		testfixture.Missing(t, "pgbouncer is not installed (Debian's pgbouncer)")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	dbname := fmt.Sprintf("psbouncer_%d", time.Now().UnixNano())
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + dbname); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(`DROP DATABASE ` + dbname + ` WITH (FORCE)`) })

	port, err := testpostgres.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// pgbouncer refuses to run as root, and runs as postgres: its
	// configuration is in a folder others may read (t.TempDir's parent is
	// not), and it logs to standard error.
	dir, err := os.MkdirTemp("", "promptsmith-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	host, pgport, _ := net.SplitHostPort(u.Host)
	user := u.User.Username()
	ini := fmt.Sprintf(`[databases]
%s = host=%s port=%s dbname=%s user=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 2
max_client_conn = 100
`, dbname, host, pgport, dbname, user, port)
	conf := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(conf, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{conf}
	if os.Geteuid() == 0 {
		args = []string{"-u", "postgres", conf}
	}
	cmd := exec.Command(bin, args...)
	var out testfixture.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	target := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, port, dbname)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitForPostgres(t, target, &out, exited)

	store := open(t, target)
	const n = 24
	hashes, errs := make([]string, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		res := delegate(t, "pooled parent", fmt.Sprintf("pooled task %d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes[i], errs[i] = store.Record(context.Background(), delegation(t), res)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("record %d through pgbouncer: %v", i, err)
		}
	}
	for _, h := range hashes {
		if chain := chainOf(t, store, h); len(chain) != 2 {
			t.Fatalf("chain of %s: %v", h[:12], chain)
		}
	}
	rep, err := store.Verify(context.Background())
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify through pgbouncer: %v %v", err, rep.Problems)
	}
	reader := readOnly(t, target)
	if _, err := reader.Get(context.Background(), hashes[0]); err != nil {
		t.Fatalf("a read-only store through pgbouncer: %v", err)
	}
}

// waitForPostgres waits until target answers a query, for at most a
// minute, or until its server exits; the error shows what it wrote.
func waitForPostgres(t *testing.T, target string, out *testfixture.SyncBuffer, exited <-chan struct{}) {
	t.Helper()
	db, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := db.QueryRowContext(ctx, "SELECT 1").Scan(new(int))
		cancel()
		if err == nil {
			return
		}
		select {
		case <-exited:
			t.Fatalf("the server of %s exited: %v\n%s", target, err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer: %v\n%s", target, err, out.String())
		}
	}
}
