package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/typegen"
)

// TestSchemaLang: render schema prints the JSON Schema as written by
// default and with --lang json, the generated types with --lang ts and
// python, and refuses another language as a usage error that lists them.
func TestSchemaLang(t *testing.T) {
	t.Parallel()
	v := fixture.Variant(t, "delegation")
	for _, args := range [][]string{{"schema", "delegation"}, {"schema", "delegation", "--lang", "json"}} {
		if r := runCLI(t, "", args...); r.code != 0 || r.stdout != string(v.SchemaJSON()) {
			t.Errorf("render %s: exit %d, stdout is not the schema as written; stderr: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	for _, lang := range typegen.Langs() {
		want, err := typegen.Generate(lang, "delegation", v.SchemaJSON())
		if err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "", "schema", "delegation", "--lang", string(lang))
		if r.code != 0 || r.stdout != string(want) {
			t.Errorf("render schema delegation --lang %s: exit %d, stderr %q, stdout:\n%.300s", lang, r.code, r.stderr, r.stdout)
		}
	}

	r := runCLI(t, "", "schema", "delegation", "--lang", "rust")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `--lang: unknown language "rust": choose json, ts, python`) {
		t.Errorf("--lang rust: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "schema", "delegation", "--lang", "rust", "--format", "json")
	var body struct {
		Error struct {
			Kind, Flag, Reason string
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stderr), &body); err != nil || body.Error.Kind != "usage" || body.Error.Flag != "--lang" {
		t.Errorf("--lang rust --format json: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "", "schema", "delegaton", "--lang", "ts"); r.code != 2 || !strings.Contains(r.stderr, `did you mean "delegation"?`) {
		t.Errorf("unknown variant with --lang ts: exit %d, stderr %q", r.code, r.stderr)
	}
}
