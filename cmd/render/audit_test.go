package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// TestAuditReadsNeverCreate: audit show and audit chain on a file that does
// not exist fail, naming it, and leave no file behind.
func TestAuditReadsNeverCreate(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	target := filepath.Join(t.TempDir(), "audit.db")
	auditRoundTrip(t, target)
	auditBudget(t, target)
}

// TestAuditPostgres: the same against PostgreSQL, when the tests have one
// (testpostgres.Env, set by .ci/run).
func TestAuditPostgres(t *testing.T) {
	t.Parallel()
	target := testpostgres.Schema(t, "render_test_")
	r := runCLI(t, "", "audit", "show", "dlg-x", "--audit", target)
	if r.code != 2 || !strings.Contains(r.stderr, "no audit store in this database") {
		t.Fatalf("reading an empty database: exit %d\n%s", r.code, r.stderr)
	}
	auditRoundTrip(t, target)
	auditBudget(t, target)
	auditVerify(t, target, "pgx")
}

func auditRoundTrip(t *testing.T, target string) {
	t.Helper()
	var res struct {
		Text       string
		IDs        map[string]string
		Provenance struct {
			Library string
			Short   string `json:"library_short"`
		}
	}
	renderJSON(t, &res, "delegation", "--example", "nested-chain", "--audit", target, "--format", "json")
	if res.Provenance.Short == "" {
		t.Fatalf("render: no provenance: %+v", res.Provenance)
	}
	id := res.IDs["delegation_id"]

	r := runCLI(t, "", "audit", "chain", id, "--audit", target)
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
	var res struct {
		Text   string
		Budget json.RawMessage
	}
	renderJSON(t, &res, "space", "--example", "crowded", "--max-tokens", "1000", "--tokens", "o200k_base", "--audit", target, "--format", "json")
	if len(res.Budget) == 0 {
		t.Fatalf("render: no budget: %.300s", res.Text)
	}
	var want struct {
		MaxTokens int `json:"max_tokens"`
		Cuts      []json.RawMessage
	}
	if err := json.Unmarshal(res.Budget, &want); err != nil || want.MaxTokens != 1000 || len(want.Cuts) == 0 {
		t.Fatalf("the render cut nothing: %v %s", err, res.Budget)
	}
	key := audit.Hash(res.Text)[:16]

	r := runCLI(t, "", "audit", "show", key, "--audit", target, "--format", "json")
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

// TestAuditVerify: render audit verify, and show, on a SQLite store altered
// behind its back.
func TestAuditVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	auditVerify(t, filepath.Join(dir, "audit.db"), "sqlite")

	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no store named", []string{"audit", "verify"}, "--audit FILE"},
		{"no store there", []string{"audit", "verify", "--audit", filepath.Join(dir, "none.db")}, "no audit database at"},
		{"an argument", []string{"audit", "verify", "x", "--audit", filepath.Join(dir, "audit.db")}, "unknown command"},
	} {
		if r := runCLI(t, "", tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%s: exit %d\n%s", tc.name, r.code, r.stderr)
		}
	}
}

// auditVerify records a prompt into target, checks that verify passes,
// changes one byte of the prompt's own text in the database (driver opens
// it), and checks that verify reports the row and exits 1, and that show
// refuses the prompt with exit status 1, naming the row, never printing
// its bytes.
func auditVerify(t *testing.T, target, driver string) {
	t.Helper()
	var res struct {
		Text string
		IDs  map[string]string
	}
	renderJSON(t, &res, "delegation", "--example", "minimal", "--audit", target, "--format", "json")
	id := res.IDs["delegation_id"]
	r := runCLI(t, "", "audit", "verify", "--audit", target)
	summary := regexp.MustCompile(`^verify: ok: \d+ prompts, \d+ parts, \d+ ids?; signatures not checked \(no --audit-key\)\n$`)
	if r.code != 0 || !summary.MatchString(r.stdout) {
		t.Fatalf("verify of a store nobody altered: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	r = runCLI(t, "", "audit", "show", id, "--audit", target, "--format", "json")
	var e struct{ Hash string }
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Hash == "" {
		t.Fatalf("show: %v %s", err, r.stderr)
	}
	db, err := sql.Open(driver, target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := map[bool][2]string{
		false: {`SELECT bytes FROM parts WHERE hash = ? AND seq = 0`, `UPDATE parts SET bytes = ? WHERE hash = ? AND seq = 0`},
		true:  {`SELECT bytes FROM parts WHERE hash = $1 AND seq = 0`, `UPDATE parts SET bytes = $1 WHERE hash = $2 AND seq = 0`},
	}[driver == "pgx"]
	var b []byte
	if err := db.QueryRow(q[0], e.Hash).Scan(&b); err != nil || len(b) == 0 {
		t.Fatalf("the prompt's first part: %v", err)
	}
	b[len(b)/2] ^= 0x01
	if _, err := db.Exec(q[1], b, e.Hash); err != nil {
		t.Fatal(err)
	}

	row := "parts hash=" + e.Hash + ": "
	r = runCLI(t, "", "audit", "verify", "--audit", target)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], row) ||
		!regexp.MustCompile(`^verify: 1 problem: \d+ prompts, \d+ parts, \d+ ids?; signatures not checked \(no --audit-key\)$`).MatchString(lines[1]) {
		t.Errorf("verify of the altered store: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "verify", "--audit", target, "--format", "json")
	var rep struct {
		Problems []struct{ Table, Hash, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 1 || err != nil || len(rep.Problems) != 1 ||
		rep.Problems[0].Table != "parts" || rep.Problems[0].Hash != e.Hash {
		t.Errorf("verify --format json: exit %d %v\n%s", r.code, err, r.stdout)
	}

	for _, key := range []string{id, e.Hash, audit.Hash(res.Text)} { // by id, address, and the original SHA-256
		for _, cmd := range []string{"show", "chain"} {
			r = runCLI(t, "", "audit", cmd, key, "--audit", target)
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "fails verification: "+row) {
				t.Errorf("audit %s %.16s of the altered prompt: exit %d\n%.200s\n%s", cmd, key, r.code, r.stdout, r.stderr)
			}
			for line := range strings.Lines(res.Text) {
				if line = strings.TrimSpace(line); len(line) >= 12 && strings.Contains(r.stderr, line) {
					t.Errorf("audit %s prints the prompt's bytes: %q", cmd, line)
				}
			}
		}
	}
}

// TestAuditKey: records signed with the key PROMPTSMITH_AUDIT_KEY names
// verify with --audit-key; a row changed without the key fails verify and
// show with it, and reads as before without it; a key file that cannot be
// used is a usage error that never prints the setting.
func TestAuditKey(t *testing.T) {
	dir := t.TempDir()
	db, key := filepath.Join(dir, "audit.db"), filepath.Join(dir, "audit.key")
	if err := os.WriteFile(key, []byte(strings.Repeat("5f", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(auditKeyEnv, key)
	var res struct{ IDs map[string]string }
	renderJSON(t, &res, "delegation", "--example", "minimal", "--audit", db, "--format", "json")
	id := res.IDs["delegation_id"]

	ok := regexp.MustCompile(`^verify: ok: 2 prompts, 3 parts, 1 id; signatures checked\n$`)
	var r result
	for _, args := range [][]string{{}, {"--audit-key", key}} { // the variable, then the flag
		r = runCLI(t, "", append([]string{"audit", "verify", "--audit", db}, args...)...)
		if r.code != 0 || !ok.MatchString(r.stdout) {
			t.Fatalf("verify %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	t.Setenv(auditKeyEnv, "")
	r = runCLI(t, "", "audit", "verify", "--audit", db)
	if r.code != 0 || !strings.HasSuffix(r.stdout, "signatures not checked (no --audit-key; 3 rows are signed)\n") {
		t.Errorf("verify without the key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	sqlDB, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	var hash string
	if err := sqlDB.QueryRow(`SELECT hash FROM ids WHERE value = ?`, id).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlDB.Exec(`UPDATE prompts SET variant = 'forged' WHERE hash = ?`, hash); err != nil {
		t.Fatal(err)
	}
	row := "prompts hash=" + hash + ": its signature does not verify"
	r = runCLI(t, "", "audit", "verify", "--audit", db, "--audit-key", key)
	if r.code != 1 || !strings.HasPrefix(r.stdout, row) || !strings.Contains(r.stdout, "\nverify: 1 problem: ") {
		t.Errorf("verify with the key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "show", id, "--audit", db, "--audit-key", key)
	if r.code != 1 || !strings.Contains(r.stderr, row) {
		t.Errorf("show with the key: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, "", "audit", "show", id, "--audit", db)
	if r.code != 0 || !strings.Contains(r.stdout, fixture.Heading(t, "delegation", 0)) {
		t.Errorf("show without the key: exit %d\n%s", r.code, r.stderr)
	}

	short := filepath.Join(dir, "short.key")
	os.WriteFile(short, []byte("0123456789\n"), 0o600)
	secret := "not-a-path-but-a-secret-0123456789abcdef"
	for _, tc := range []struct {
		name, env string
		args      []string
		stderr    string
	}{
		{"a missing key file", "", []string{"audit", "show", id, "--audit", db, "--audit-key", filepath.Join(dir, "none")}, "--audit-key: cannot read the audit key file"},
		{"a key too short", "", []string{"audit", "verify", "--audit", db, "--audit-key", short}, "holds 10 bytes; a key needs at least 32"},
		{"the key itself in the variable", secret, []string{"audit", "verify", "--audit", db}, auditKeyEnv + ": cannot read the audit key file"},
		{"the key itself in the variable, recording", secret, []string{"delegation", "--example", "minimal", "--audit", db}, auditKeyEnv + ": cannot read"},
		{"serve", "", []string{"serve", "--addr", "127.0.0.1:0", "--audit", db, "--audit-key", short}, "--audit-key: the audit key file holds 10 bytes"},
	} {
		t.Setenv(auditKeyEnv, tc.env)
		r := runCLI(t, "", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.stderr) || strings.Contains(r.stderr, secret) {
			t.Errorf("%s: exit %d\n%s", tc.name, r.code, r.stderr)
		}
	}
}

// TestAuditServeSigns runs the real render serve with --audit-key: what it
// records verifies with the key.
func TestAuditServeSigns(t *testing.T) {
	dir := t.TempDir()
	db, key := filepath.Join(dir, "audit.db"), filepath.Join(dir, "audit.key")
	if err := os.WriteFile(key, []byte(strings.Repeat("a7", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(auditKeyEnv, "") // the flag alone
	srv := startServe(t, "--audit", db, "--audit-key", key)
	resp, err := http.Post("http://"+srv.addr+"/v1/render/delegation", "application/json", strings.NewReader(validInput))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("render: %s", resp.Status)
	}
	srv.terminate(t)
	srv.wait(t)
	r := runCLI(t, "", "audit", "verify", "--audit", db, "--audit-key", key)
	if r.code != 0 || !strings.HasSuffix(r.stdout, "1 id; signatures checked\n") {
		t.Errorf("verify what serve recorded: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestAuditPrune: render audit prune removes what its criteria select,
// counts it first with --dry-run, refuses to run without a criterion, and
// leaves a store that verifies.
func TestAuditPrune(t *testing.T) {
	target := filepath.Join(t.TempDir(), "audit.db")
	renderJSON(t, new(struct{ Text string }), "delegation", "--example", "nested-chain", "--audit", target, "--format", "json")
	r := runCLI(t, "", "audit", "prune", "--audit", target)
	if r.code != 2 || !strings.Contains(r.stderr, "prune needs a criterion") || !strings.Contains(r.stderr, "--older-than") {
		t.Fatalf("prune without a criterion: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, "", "audit", "prune", "--audit", target, "--keep", "1", "--dry-run")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "prune: would remove 0 prompts") {
		t.Fatalf("--keep 1 --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "prune", "--audit", target, "--older-than", "1ns", "--dry-run", "--format", "json")
	var dry struct {
		Prompts, Kept int
		DryRun        bool `json:"dry_run"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &dry); err != nil || dry.Prompts == 0 || dry.Kept != 0 || !dry.DryRun {
		t.Fatalf("--older-than 1ns --dry-run: %v %+v\n%s", err, dry, r.stderr)
	}
	r = runCLI(t, "", "audit", "prune", "--audit", target, "--older-than", "1ns")
	if r.code != 0 || !strings.HasPrefix(r.stdout, fmt.Sprintf("prune: removed %d prompts", dry.Prompts)) {
		t.Fatalf("--older-than 1ns: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "verify", "--audit", target)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "verify: ok: 0 prompts") {
		t.Fatalf("verify after the prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
