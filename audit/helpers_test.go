package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

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
	target := testpostgres.Schema(t, "audit_test_")
	return backend{name: "postgres", target: target, db: func(t *testing.T) *sql.DB {
		db, err := sql.Open("pgx", target)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}}
}

// open opens the store at target, closed when the test ends.
func open(t *testing.T, target string, opts ...audit.Option) *audit.Store {
	t.Helper()
	return opened(t, audit.Open, target, opts...)
}

// readOnly opens the store at target read-only, closed when the test ends.
func readOnly(t *testing.T, target string, opts ...audit.Option) *audit.Store {
	t.Helper()
	return opened(t, audit.OpenReadOnly, target, opts...)
}

// Its statement timeout is two minutes unless the test gives one: the
// default's 5 s bounds a production write, and a test's reads of
// thousands of levels on a loaded machine must not fail on a timing.
func opened(t *testing.T, openStore func(context.Context, string, ...audit.Option) (*audit.Store, error), target string, opts ...audit.Option) *audit.Store {
	t.Helper()
	opts = append([]audit.Option{audit.WithStatementTimeout(2 * time.Minute)}, opts...)
	s, err := openStore(context.Background(), target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// recordDelegation records res, a render of the delegation variant, and
// returns its hash.
func recordDelegation(t testing.TB, store *audit.Store, res *engine.Result) string {
	t.Helper()
	hash, err := store.Record(context.Background(), delegation(t), res)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

// chainOf is the chain of hash, from the prompt to its root.
func chainOf(t *testing.T, store *audit.Store, hash string) []audit.Entry {
	t.Helper()
	links, err := store.Chain(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	return links
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
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

// lib is the embedded library (promptsmith.Library loads it once).
func lib(t testing.TB) *engine.Library {
	t.Helper()
	l, err := promptsmith.Library()
	if err != nil {
		t.Fatal(err)
	}
	return l
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
			s, err := audit.Open(context.Background(), target)
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
