package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx", to make a schema for the test
	"github.com/promptsmith/promptsmith/audit"
)

// TestAuditReadsNeverCreate: audit show and audit chain on a file that does
// not exist fail, naming it, and leave no file behind.
func TestAuditReadsNeverCreate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "audit.db")
	for _, cmd := range []string{"show", "chain"} {
		r := runCLI(t, "", "audit", cmd, "dlg-x", "--audit", db)
		if r.code != 2 || !strings.Contains(r.stderr, "no audit database at "+db) {
			t.Errorf("audit %s: exit %d\n%s", cmd, r.code, r.stderr)
		}
		if entries, _ := os.ReadDir(filepath.Dir(db)); len(entries) != 0 {
			t.Fatalf("audit %s created %v", cmd, entries)
		}
	}
}

// TestAuditProvenance: the chain names the library that rendered each
// recorded prompt, show --format json carries the provenance, and show
// prints the prompt exactly as it was rendered.
func TestAuditProvenance(t *testing.T) {
	target := filepath.Join(t.TempDir(), "audit.db")
	auditRoundTrip(t, target)
	auditBudget(t, target)
}

// TestAuditPostgres: the same against PostgreSQL, when the tests have one
// (PROMPTSMITH_TEST_POSTGRES, set by .ci/run).
func TestAuditPostgres(t *testing.T) {
	base := os.Getenv("PROMPTSMITH_TEST_POSTGRES")
	if base == "" {
		t.Skip("PROMPTSMITH_TEST_POSTGRES is not set: no PostgreSQL to test against (.ci/run starts one)")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var r [6]byte
	rand.Read(r[:])
	schema := "render_test_" + hex.EncodeToString(r[:])
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()

	r2 := runCLI(t, "", "audit", "show", "dlg-x", "--audit", u.String())
	if r2.code != 2 || !strings.Contains(r2.stderr, "no audit store in this database") {
		t.Fatalf("reading an empty database: exit %d\n%s", r2.code, r2.stderr)
	}
	auditRoundTrip(t, u.String())
	auditBudget(t, u.String())
}

func auditRoundTrip(t *testing.T, target string) {
	t.Helper()
	r := runCLI(t, "", "delegation", "--example", "nested-chain", "--audit", target, "--format", "json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	var res struct {
		Text       string
		IDs        map[string]string
		Provenance struct {
			Library string
			Short   string `json:"library_short"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Provenance.Short == "" {
		t.Fatalf("render: %v %+v", err, res.Provenance)
	}
	id := res.IDs["delegation_id"]

	r = runCLI(t, "", "audit", "chain", id, "--audit", target)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 5 {
		t.Fatalf("chain: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "level hash variant library ids" {
		t.Errorf("header: %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) < 5 || f[2] != "delegation" || f[3] != res.Provenance.Short || f[4] != "delegation_id="+id {
		t.Errorf("the recorded prompt's line: %q", lines[1])
	}
	if f := strings.Fields(lines[4]); len(f) != 4 || f[2] != "-" || f[3] != "-" {
		t.Errorf("the root's line, known only as embedded: %q", lines[4])
	}

	r = runCLI(t, "", "audit", "show", id, "--audit", target, "--format", "json")
	var e struct {
		Hash, SHA256, Text string
		Provenance         struct {
			Library string
			Short   string `json:"library_short"`
			Variant string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Provenance.Library != res.Provenance.Library || e.Provenance.Short != res.Provenance.Short || e.Provenance.Variant == "" {
		t.Fatalf("show json: %v %.300s", err, r.stdout)
	}
	if e.Text != res.Text {
		t.Error("show json: the text differs from the render's")
	}
	if strings.Contains(r.stdout, `"budget"`) {
		t.Errorf("show json: a render without a budget shows one: %.300s", r.stdout)
	}
	r = runCLI(t, "", "audit", "show", id, "--audit", target)
	if r.code != 0 || r.stdout != res.Text {
		t.Errorf("show prints the prompt exactly: exit %d %s", r.code, r.stderr)
	}
	r = runCLI(t, "", "audit", "show", e.SHA256[:16], "--audit", target)
	if r.code != 0 || r.stdout != res.Text {
		t.Errorf("show by a prefix of the text's SHA-256: exit %d %s", r.code, r.stderr)
	}
}

// auditBudget: a render fitted to a budget is recorded with its budget
// report, which show --format json gives back as the render said it; show
// still prints the prompt byte for byte.
func auditBudget(t *testing.T, target string) {
	t.Helper()
	r := runCLI(t, "", "space", "--example", "crowded", "--max-tokens", "1000", "--tokens", "o200k_base", "--audit", target, "--format", "json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	var res struct {
		Text   string
		Budget json.RawMessage
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.Budget) == 0 {
		t.Fatalf("render: %v %.300s", err, r.stdout)
	}
	var want struct {
		MaxTokens int `json:"max_tokens"`
		Cuts      []json.RawMessage
	}
	if err := json.Unmarshal(res.Budget, &want); err != nil || want.MaxTokens != 1000 || len(want.Cuts) == 0 {
		t.Fatalf("the render cut nothing: %v %s", err, res.Budget)
	}
	key := audit.Hash(res.Text)[:16]

	r = runCLI(t, "", "audit", "show", key, "--audit", target, "--format", "json")
	var e struct {
		Variant, Text string
		Budget        json.RawMessage
	}
	if err := json.Unmarshal([]byte(r.stdout), &e); r.code != 0 || err != nil {
		t.Fatalf("show json: exit %d %v\n%s", r.code, err, r.stderr)
	}
	if e.Variant != "space" || e.Text != res.Text {
		t.Errorf("show json: variant %q, or the text differs from the render's", e.Variant)
	}
	if !sameJSON(t, e.Budget, res.Budget) {
		t.Errorf("show json: budget\n%s\nwant the render's\n%s", e.Budget, res.Budget)
	}

	r = runCLI(t, "", "audit", "show", key, "--audit", target)
	if r.code != 0 || r.stdout != res.Text {
		t.Errorf("show prints the budgeted prompt exactly: exit %d %s", r.code, r.stderr)
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}
