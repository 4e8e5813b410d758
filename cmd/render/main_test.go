package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	_ "github.com/promptsmith/promptsmith/internal/testing/goldentest" // registers -update for go test ./... -update
)

type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs render with args in process, as from a folder of no working
// copy: the embedded library unless --templates names one.
func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runApp(t, &app{}, stdin, args...)
}

// runApp runs render with args in process, with a's settings and the
// test's streams.
func runApp(t *testing.T, a *app, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a.ctx, a.stdin, a.stdout, a.stderr = context.Background(), strings.NewReader(stdin), &out, &errb
	code := a.execute(args)
	return result{code, out.String(), errb.String()}
}

// renderJSON runs render with args, which must succeed, and decodes what
// it prints, JSON, into v.
func renderJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	r := runCLI(t, "", args...)
	if r.code != 0 {
		t.Fatalf("render %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("render %s: %v\n%.300s", strings.Join(args, " "), err, r.stdout)
	}
}

// replaceInFile replaces the first old in the file at path with new; the
// file must hold old.
func replaceInFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s holds no %q to replace (%v)", path, old, err)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

const validInput = `{"parent": {"agent_id": "a", "prompt_key": "k", "prompt": "# P\n"},
 "delegation": {"reason": "r", "expected_completion": "e", "task_summary": "t", "required_outputs": ["x"]}}`

func TestExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"render an example", "", []string{"delegation", "--example", "minimal"}, 0, fixture.Heading(t, "delegation", 0), ""},
		{"render stdin", validInput, []string{"delegation", "-i", "-"}, 0, "<!-- PARENT PROMPT START -->\n# P\n\n<!-- PARENT PROMPT END -->", ""},
		{"list", "", []string{"list"}, 0, "delegation", ""},
		{"examples", "", []string{"examples", "delegation"}, 0, "nested-chain", ""},
		{"schema", "", []string{"schema", "delegation"}, 0, `"$schema"`, ""},
		{"check passes", "", []string{"check", "delegation", "--example", "minimal"}, 0, "ok   headings", ""},
		{"bad input", `{"parent": {}}`, []string{"delegation", "-i", "-"}, 2, "", "/delegation: required field is missing"},
		{"invalid JSON names the line", "{\n\"a\" 1}", []string{"delegation", "-i", "-"}, 2, "", "stdin:2:5"},
		{"unknown variant", "", []string{"delegaton", "--example", "x"}, 2, "", `did you mean "delegation"?`},
		{"unknown example", "", []string{"delegation", "--example", "minimall"}, 2, "", `did you mean "minimal"?`},
		{"bad format", "", []string{"delegation", "--example", "minimal", "--format", "xml"}, 2, "", "--format must be text or json"},
		{"bad format on any command", "", []string{"list", "--format", "yaml"}, 2, "", "--format must be text or json"},
		{"unknown flag", "", []string{"delegation", "--bogus"}, 2, "", "unknown flag"},
		{"missing variant", "", []string{}, 2, "", "accepts 1 arg"},
		{"both -i and --example", "", []string{"delegation", "-i", "x", "--example", "minimal"}, 2, "", "either -i or --example"},
		{"extract depth 2", "", []string{"extract", "--depth", "2", "-i", filepath.Join("..", "..", "testdata", "golden", "delegation", "nested-chain.md")}, 0, fixture.Heading(t, "delegation", 0), ""},
		{"extract past the root", "# nothing\n", []string{"extract", "-i", "-"}, 2, "", "holds no embedded prompt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, c.stdin, c.args...)
			if r.code != c.code || !strings.Contains(r.stdout, c.stdout) || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %.400s\nstderr: %s", r.code, c.code, r.stdout, r.stderr)
			}
			if c.code != 0 && c.stdout == "" && r.stdout != "" {
				t.Errorf("a failure wrote to stdout: %.200s", r.stdout)
			}
		})
	}
}

func TestJSONFormat(t *testing.T) {
	t.Parallel()
	r := runCLI(t, validInput, "delegation", "-i", "-", "--format", "json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	var res struct {
		Text     string
		Sections []struct {
			Name       string
			Start, End int
		}
		Outline []struct{ Path string }
		Checks  []struct {
			Check string
			OK    bool
		}
		IDs map[string]string
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sections) != 6 || res.Sections[0].Name != "overview" || !strings.HasPrefix(res.Text[res.Sections[1].Start:res.Sections[1].End], fixture.Heading(t, "delegation", 1)) {
		t.Errorf("sections %+v", res.Sections)
	}
	if !strings.HasPrefix(res.IDs["delegation_id"], "dlg-") || len(res.Checks) == 0 || len(res.Outline) < 6 {
		t.Errorf("result %+v", res)
	}

	r = runCLI(t, `{"parent": 1}`, "delegation", "-i", "-", "--format", "json")
	var e struct {
		Error struct {
			Kind, Reason, Field string
			Hints               []string
		}
	}
	if r.code != 2 || json.Unmarshal([]byte(r.stderr), &e) != nil || e.Error.Field == "" || e.Error.Kind != "input" {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestOutputIsAtomic: a failed render leaves an existing file alone and
// creates none; a good one replaces it whole.
func TestOutputIsAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "prompt.md")
	if err := os.WriteFile(out, []byte("previous"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, `{"parent": {}}`, "delegation", "-i", "-", "-o", out)
	if r.code != 2 {
		t.Fatalf("exit %d", r.code)
	}
	if b, _ := os.ReadFile(out); string(b) != "previous" {
		t.Fatalf("a failed render changed the output file to %q", b)
	}
	fresh := filepath.Join(dir, "new.md")
	runCLI(t, `{"parent": {}}`, "delegation", "-i", "-", "-o", fresh)
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatal("a failed render created the output file")
	}
	r = runCLI(t, validInput, "delegation", "-i", "-", "-o", out)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(out); !bytes.HasPrefix(b, []byte(fixture.Heading(t, "delegation", 0))) {
		t.Fatalf("output file holds %.100q", b)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("replacing the file changed its mode to %v", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	r = runCLI(t, validInput, "delegation", "-i", "-", "-o", filepath.Join(dir, "missing", "x.md"))
	if r.code != 2 || !strings.Contains(r.stderr, "cannot write the output") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestCheckFailure renders from a working copy whose template breaks a
// heading check: exit 1, the report on stderr, nothing written.
func TestCheckFailure(t *testing.T) {
	t.Parallel()
	dir := fixture.LibraryCopy(t)
	replaceInFile(t, filepath.Join(dir, "templates", "delegation", "tooling.md.tmpl"), fixture.Heading(t, "delegation", 4), "## Tools")
	out := filepath.Join(t.TempDir(), "p.md")
	r := runCLI(t, validInput, "delegation", "-i", "-", "--templates", dir, "-o", out)
	if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("%q is missing", fixture.Heading(t, "delegation", 4))) {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a prompt that failed its checks was written")
	}
	r = runCLI(t, validInput, "check", "delegation", "-i", "-", "--templates", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL headings") {
		t.Fatalf("check: exit %d, stdout %s", r.code, r.stdout)
	}
}

// TestTemplateErrorsNameTheAuthorsFile: a broken template is reported at the
// file and line the author edits.
func TestTemplateErrorsNameTheAuthorsFile(t *testing.T) {
	t.Parallel()
	dir := fixture.LibraryCopy(t)
	tmpl := filepath.Join(dir, "templates", "delegation", "details.md.tmpl")
	replaceInFile(t, tmpl, "## Delegation Details\n", "## Delegation Details\n\n{{ .delegation.no_such_field }}\n")
	r := runCLI(t, validInput, "delegation", "-i", "-", "--templates", dir)
	want := filepath.Join(dir, "templates", "delegation", "details.md.tmpl") + ":3:"
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, `no field "no_such_field"`) {
		t.Fatalf("exit %d, stderr %s (want %s)", r.code, r.stderr, want)
	}
	os.WriteFile(tmpl, []byte("{{ if }}\n"), 0o644)
	r = runCLI(t, validInput, "delegation", "-i", "-", "--templates", dir)
	if r.code != 2 || !strings.Contains(r.stderr, filepath.Join("delegation", "details.md.tmpl")+":1") {
		t.Fatalf("parse error: exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestAuditChain(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "audit.db")
	var res struct{ IDs map[string]string }
	renderJSON(t, &res, "delegation", "--example", "nested-chain", "--audit", db, "--format", "json")
	id := res.IDs["delegation_id"]
	r := runCLI(t, "", "audit", "chain", id, "--audit", db)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 5 || !strings.Contains(r.stdout, id) {
		t.Fatalf("chain: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "chain", id, "--audit", db, "--format", "json")
	var chain []struct{ Hash string }
	if err := json.Unmarshal([]byte(r.stdout), &chain); err != nil || len(chain) != 4 {
		t.Fatalf("chain json: %v %s", err, r.stdout)
	}
	root := runCLI(t, "", "audit", "show", chain[3].Hash, "--audit", db)
	want := runCLI(t, "", "extract", "--depth", "3", "-i", filepath.Join("..", "..", "testdata", "golden", "delegation", "nested-chain.md"))
	if root.code != 0 || root.stdout != want.stdout {
		t.Fatalf("the root prompt from the store differs from extract --depth 3:\n%s", root.stderr)
	}
	r = runCLI(t, "", "audit", "show", "dlg-unknown", "--audit", db)
	if r.code != 2 || !strings.Contains(r.stderr, "dlg-unknown") {
		t.Fatalf("unknown id: exit %d %s", r.code, r.stderr)
	}
	r = runCLI(t, "", "audit", "show", "%", "--audit", db)
	if r.code != 2 || !strings.Contains(r.stderr, "no prompt") {
		t.Fatalf("a wildcard is not a prefix: exit %d %s", r.code, r.stderr)
	}
	r = runCLI(t, "", "audit", "show", "x")
	if r.code != 2 || !strings.Contains(r.stderr, "--audit FILE") {
		t.Fatalf("no database: exit %d %s", r.code, r.stderr)
	}
}

func TestTokenCounts(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "", "delegation", "--example", "minimal", "--format", "json", "--tokens", "o200k_base")
	var res struct {
		Tokens   int
		Sections []struct{ Tokens int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("exit %d: %v %s", r.code, err, r.stderr)
	}
	sum := 0
	for _, s := range res.Sections {
		if s.Tokens == 0 {
			t.Errorf("a section without a token count: %+v", res.Sections)
		}
		sum += s.Tokens
	}
	// Joiners add a token or so between sections; the total is counted on the whole text.
	if res.Tokens < sum-len(res.Sections) || res.Tokens > sum+len(res.Sections) {
		t.Errorf("total %d against sections summing to %d", res.Tokens, sum)
	}
	r = runCLI(t, "", "delegation", "--example", "minimal", "--format", "json")
	if strings.Contains(r.stdout, `"tokens"`) {
		t.Error("tokens counted without --tokens")
	}
}
