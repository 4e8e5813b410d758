// Package testpostgres gives a test a schema of its own in the PostgreSQL
// database the tests may use.
package testpostgres

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// Env names the PostgreSQL database the tests may use, as a postgres://
// URL. When it is unset, Main starts a throwaway cluster for the test
// process if PostgreSQL's server binaries are installed, and sets it; the
// PostgreSQL tests skip when there is neither (and fail under CI=true).
const Env = "PROMPTSMITH_TEST_POSTGRES"

// Schema creates a schema, prefix and random hex, in the database Env
// names, dropped when the test ends, and returns the URL that reaches it
// (through search_path). It skips the test when Env is unset (the package's
// TestMain calls no Main, or the binaries are missing), but not in CI.
func Schema(t testing.TB, prefix string) string {
	t.Helper()
	base := Database(t)
	var r [6]byte
	rand.Read(r[:])
	schema := prefix + hex.EncodeToString(r[:])
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
	return u.String()
}

// Database is the URL of the database Env names, once it accepts
// connections (Main's cluster starts while the first tests run). It skips
// the test when Env is unset, but not in CI.
func Database(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		fixture.Missing(t, Env+" is not set and PostgreSQL's server binaries are missing (Debian: apt-get install postgresql): no PostgreSQL to test against")
	}
	waitReady(t)
	return base
}

// redacted is the URL s without its password, for messages.
func redacted(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "the URL"
}
