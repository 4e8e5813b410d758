package audit_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// postgresEnv names the PostgreSQL database the tests may use, as a
// postgres:// URL; the PostgreSQL tests skip when it is unset. .ci/run
// starts a throwaway server and sets it.
const postgresEnv = "PROMPTSMITH_TEST_POSTGRES"

// backend is where a test's store lives: a fresh SQLite file, or a fresh
// schema of the PostgreSQL database.
type backend struct {
	name   string
	target string
	// db opens the database itself, to count rows behind the store's back.
	db func(t *testing.T) *sql.DB
}

// eachBackend runs f against a new, empty store on SQLite and on PostgreSQL.
func eachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	t.Run("sqlite", func(t *testing.T) { f(t, sqliteBackend(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresBackend(t)) })
}

func sqliteBackend(t *testing.T) backend {
	path := filepath.Join(t.TempDir(), "audit.db")
	return backend{name: "sqlite", target: path, db: func(t *testing.T) *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}}
}

// postgresBackend gives the test a schema of its own in the database
// PROMPTSMITH_TEST_POSTGRES names (through search_path in the URL), dropped
// when the test ends.
func postgresBackend(t *testing.T) backend {
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skip(postgresEnv + " is not set: no PostgreSQL to test against (.ci/run starts one)")
	}
	var r [6]byte
	rand.Read(r[:])
	schema := "audit_test_" + hex.EncodeToString(r[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("%s: cannot create a schema for the test: %v", redacted(base), err)
	}
	t.Cleanup(func() { admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`) })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	target := u.String()
	return backend{name: "postgres", target: target, db: func(t *testing.T) *sql.DB {
		db, err := sql.Open("pgx", target)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}}
}

func redacted(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "the URL"
}

func open(t *testing.T, target string) *audit.Store {
	t.Helper()
	s, err := audit.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// lib is the embedded library (promptsmith.Library loads it once).
func lib(t testing.TB) *engine.Library {
	t.Helper()
	l, err := promptsmith.Library()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// delegationInput is a minimal delegation input around parent; task tells
// delegations of one parent apart.
func delegationInput(parent, task string) []byte {
	in := map[string]any{
		"parent": map[string]any{"agent_id": "a", "prompt_key": "k", "prompt": parent},
		"delegation": map[string]any{"reason": "r", "expected_completion": "e", "task_summary": task,
			"required_outputs": []string{"x"}, "parent_max_bytes": 1 << 30},
	}
	data, _ := json.Marshal(in)
	return data
}

func renderDelegation(parent, task string) (*engine.Result, error) {
	l, err := promptsmith.Library()
	if err != nil {
		return nil, err
	}
	return l.Render(context.Background(), "delegation", engine.Input{Name: "in.json", Data: delegationInput(parent, task)})
}

func delegate(t testing.TB, parent, task string) *engine.Result {
	t.Helper()
	res, err := renderDelegation(parent, task)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// chain renders depth delegations, each the parent of the next, and returns
// the prompts from the root (prompts[0]) to the last subagent, with the
// last Result.
func chain(t testing.TB, root string, depth int, task string) ([]string, *engine.Result) {
	t.Helper()
	prompts := []string{root}
	var last *engine.Result
	for range depth {
		last = delegate(t, prompts[len(prompts)-1], task)
		prompts = append(prompts, last.Text)
	}
	return prompts, last
}

func delegation(t testing.TB) *engine.Variant {
	v, err := lib(t).Variant("delegation")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// nestedMarkers is a parent prompt whose verbatim region nests depth levels
// of bare markers around one line: the most levels per byte a parent can hold.
func nestedMarkers(depth int) string {
	const start, end = "<!-- PARENT PROMPT START -->\n", "<!-- PARENT PROMPT END -->\n"
	return strings.Repeat(start, depth) + "the innermost prompt\n" + strings.Repeat(end, depth)
}

// sqliteDB opens a SQLite file directly, for writing.
func sqliteDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openAtOnce opens n stores on target at the same time, as replicas
// starting together do, and closes them; every open must succeed.
func openAtOnce(t *testing.T, target string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range errs {
		wg.Go(func() {
			s, err := audit.Open(target)
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
