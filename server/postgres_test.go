package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx", to lock a table

	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
	"github.com/promptsmith/promptsmith/server"
)

// TestPostgresAuditPath runs a server on a PostgreSQL cluster of the
// test's own and does to it what goes wrong in production:
//
//   - a table locked by another session: the render's audit write waits
//     on the lock without holding the render slot (a check renders
//     meanwhile in the one slot), and the render answers 503 at its
//     --render-timeout rather than when the lock goes;
//   - PostgreSQL stopped: /readyz turns 503 and renders answer 503 with
//     Retry-After; started again, both recover with no restart.
//
// The times are logged, not asserted: the waits only bound hangs.
func TestPostgresAuditPath(t *testing.T) {
	t.Parallel()
	pg := testpostgres.StartCluster(t)
	srv, store := auditedServer(t, pg.URL("postgres"))
	srv.MaxRenders, srv.RenderTimeout = 1, 3*time.Second
	ts := httptest.NewServer(srv)
	defer ts.Close()
	render := func() (int, string) {
		resp, body := call(t, ts, "POST", "/v1/render/delegation", input, "", "Content-Type", "application/json")
		if resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "" {
			t.Errorf("503 without Retry-After: %s", body)
		}
		return resp.StatusCode, string(body)
	}
	status := func(path string) int {
		resp, _ := call(t, ts, "GET", path, "", "")
		return resp.StatusCode
	}
	until := func(what string, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > 2*time.Minute { // bounds a hang only
				t.Fatalf("%s: not within two minutes", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return time.Since(start)
	}
	if code, body := render(); code != 200 || status("/readyz") != 200 {
		t.Fatalf("before anything went wrong: %d %.300s", code, body)
	}

	t.Run("locked table", func(t *testing.T) {
		db, err := sql.Open("pgx", pg.URL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// The render's --render-timeout is the window the checks below
		// have while its write waits on the lock; a window the machine's
		// load closes before they are done is tried again, twice as long.
		for window := 400 * time.Millisecond; !lockedTable(t, db, pg.URL("postgres"), window); window *= 2 {
			if window >= 25*time.Second {
				t.Fatalf("a render behind a locked table answered before %s", window)
			}
			t.Logf("the render answered before the checks were done: again with --render-timeout %s", 2*window)
		}
	})

	t.Run("stopped and started", func(t *testing.T) {
		pg.Stop(t)
		t.Logf("/readyz 503 %s after PostgreSQL stopped", until("/readyz 503", func() bool { return status("/readyz") == 503 }).Round(time.Millisecond))
		code, written := render()
		if code != 503 || !json.Valid([]byte(written)) {
			t.Errorf("a render with PostgreSQL down: %d %.300s", code, written)
		} else if status("/livez") != 200 {
			t.Error("/livez failed with the database")
		}
		// A read while the store is down answers 503 without the
		// database's user, host, port or name, as the failed write and
		// the probe do: the log has them.
		resp, read := call(t, ts, "GET", "/v1/audit/"+strings.Repeat("a", 64), "", "")
		_, ready := call(t, ts, "GET", "/readyz", "", "")
		u, _ := url.Parse(pg.URL("postgres"))
		for what, body := range map[string]string{"an audit read": string(read), "a render": written, "/readyz": string(ready)} {
			for _, secret := range []string{u.User.Username(), u.Hostname(), u.Port(), strings.TrimPrefix(u.Path, "/"), "postgres://"} {
				if secret != "" && strings.Contains(body, secret) {
					t.Errorf("%s with PostgreSQL down tells %q: %s", what, secret, body)
				}
			}
		}
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("an audit read with PostgreSQL down: %d %s", resp.StatusCode, read)
		}
		pg.Start(t)
		t.Logf("/readyz 200 %s after PostgreSQL started", until("/readyz 200", func() bool { return status("/readyz") == 200 }).Round(time.Millisecond))
		var body string
		t.Logf("a render 200 %s after /readyz", until("a render 200", func() bool { var c int; c, body = render(); return c == 200 }).Round(time.Millisecond))
		var res struct{ IDs map[string]string }
		json.Unmarshal([]byte(body), &res)
		if _, err := store.Resolve(context.Background(), res.IDs["delegation_id"]); err != nil {
			t.Errorf("the render after the restart is not recorded: %v", err)
		}
	})
}

// lockedTable locks the prompts table and renders on a server of its own
// whose render timeout is window, on the store at target: the render's
// audit write waits on the lock without holding the render slot (a check
// renders meanwhile in the one slot), and the render answers 503 at its
// timeout. It reports false, having checked nothing that depends on it,
// when the render answered before the checks were done.
func lockedTable(t *testing.T, db *sql.DB, target string, window time.Duration) bool {
	t.Helper()
	srv, _ := auditedServer(t, target)
	srv.MaxRenders, srv.RenderTimeout = 1, window
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`LOCK TABLE prompts IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	answered := make(chan int, 1)
	start := time.Now()
	go func() {
		resp, _ := call(t, ts, "POST", "/v1/render/delegation", `{"parent": {"agent_id": "a", "prompt_key": "k", "prompt": "# Locked\n"},
 "delegation": {"reason": "r", "expected_completion": "e", "task_summary": "t", "required_outputs": ["x"]}}`, "", "Content-Type", "application/json")
		answered <- resp.StatusCode
	}()
	for waiting := 0; waiting == 0; {
		select {
		case code := <-answered:
			if code != 503 {
				t.Fatalf("a render behind a locked table: %d before its write waited on the lock, want 503", code)
			}
			return false
		case <-time.After(20 * time.Millisecond):
		}
		db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = 'promptsmith audit' AND wait_event_type = 'Lock'`).Scan(&waiting)
	}
	if n := server.GaugeOf(t, srv, "promptsmith_renders_in_flight"); n != 0 {
		t.Errorf("the audit write holds a render slot: %v in flight", n)
	}
	resp, body := call(t, ts, "POST", "/v1/check/delegation", input, "", "Content-Type", "application/json")
	select {
	case <-answered:
		return false
	default:
	}
	if resp.StatusCode != 200 {
		t.Errorf("a check in the one slot while a write waits: %d %.300s", resp.StatusCode, body)
	}
	code := <-answered
	t.Logf("a render behind the locked table answered %d after %s (--render-timeout %s)", code, time.Since(start).Round(time.Millisecond), window)
	if code != 503 {
		t.Errorf("a render behind a locked table: %d, want 503", code)
	}
	return true
}
