package gather

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// hostFS is a small variant with probes of every kind, written for these
// tests: the engine's own tests name no variant of the library.
func hostFS(gather string) fstest.MapFS {
	return fstest.MapFS{
		"schemas/host.schema.json": {Data: []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "additionalProperties": false, "required": ["name"],
  "properties": {
    "name": {"type": "string", "description": "Who the prompt is for."},
    "environment": {"type": "object", "additionalProperties": false, "default": {}, "description": "The host.",
      "properties": {
        "platform": {"type": "string", "description": "GOOS."},
        "shell": {"type": "string", "description": "$SHELL."},
        "cwd": {"type": "string", "description": "The directory."},
        "git_status": {"type": "string", "description": "git status --short."},
        "recent_commits": {"type": "string", "description": "git log --oneline."},
        "date": {"type": "string", "format": "date", "description": "Today."}
      }},
    "instructions": {"type": "string", "description": "AGENTS.md."},
    "tasks": {"type": "array", "description": "bd ready --json.",
      "items": {"$ref": "#/$defs/task"}},
    "extra": {"type": "string", "description": "A field for probes that fail."},
    "now": {"type": "string", "format": "date-time", "description": "The time."}
  },
  "$defs": {
    "task": {"type": "object", "additionalProperties": false, "required": ["id", "status", "title"],
      "properties": {
        "id": {"type": "string", "description": "Id."},
        "status": {"type": "string", "description": "Status."},
        "title": {"type": "string", "description": "Title."}
      }}
  }
}`)},
		"templates/host/prompt.yaml": {Data: []byte("sections: [main]\ngather:\n" + gather)},
		"templates/host/main.md.tmpl": {Data: []byte(`# {{ .name }}
{{ range entries .environment }}{{ .key }}={{ .value }}
{{ end }}{{ with get . "tasks" }}{{ range . }}- {{ .id }}: [{{ .status }}] {{ .title }}
{{ end }}{{ end }}`)},
		"templates/host/examples/basic.yaml": {Data: []byte("name: basic\n")},
	}
}

const hostProbes = `
  - {field: /environment/platform, value: os}
  - {field: /environment/shell, env: SHELL}
  - {field: /environment/cwd, value: cwd}
  - {field: /environment/git_status, command: [git, status, --short]}
  - {field: /environment/recent_commits, command: [git, log, --oneline, "-5"]}
  - {field: /environment/date, value: date}
  - {field: /instructions, file: AGENTS.md}
  - {field: /tasks, command: [bd, ready, --json], parse: json, keep: [id, status, title], optional: true, timeout: 300ms}
  - {field: /now, value: now}
`

func hostVariant(t *testing.T, gather string) *engine.Variant {
	t.Helper()
	lib, err := engine.LoadStrict(hostFS(gather))
	if err != nil {
		t.Fatal(err)
	}
	v, err := lib.Variant("host")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// gitRepo makes a repository with one commit and one modified file.
func gitRepo(t *testing.T) string {
	t.Helper()
	repo := testrepo.New(t)
	repo.Commit("Add a.txt", "a.txt", "one\n")
	repo.Write("a.txt", "two\n")
	return repo.Dir
}

func fixedClock() time.Time {
	return time.Date(2026, 3, 14, 10, 30, 0, 500, time.FixedZone("CET", 3600))
}

func values(found []Gathered) map[string]any {
	m := map[string]any{}
	for _, g := range found {
		m[g.Field] = g.Value
	}
	return m
}

func TestGatherFromAProject(t *testing.T) {
	dir := gitRepo(t)
	agents := "# Rules\n\nRun make test.\n"
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture.FakeCommand(t, "bd", `echo '[{"id": "SWARM-42", "title": "Add login", "status": "open", "priority": 1, "labels": ["api"]},'
echo ' {"id": "SWARM-44", "title": "Test login", "status": "in_progress", "issue_type": "task"}]'`)
	t.Setenv("SHELL", "/bin/testsh")
	v := hostVariant(t, hostProbes)

	found, warns := Run(context.Background(), v, Options{Dir: dir, Now: fixedClock})
	if len(warns) > 0 {
		t.Fatalf("warnings: %v", warns)
	}
	var fields []string
	for _, g := range found {
		fields = append(fields, g.Field)
	}
	want := []string{"/environment/platform", "/environment/shell", "/environment/cwd", "/environment/git_status",
		"/environment/recent_commits", "/environment/date", "/instructions", "/tasks", "/now"}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("fields %v, want the manifest's order %v", fields, want)
	}
	got := values(found)
	checks := map[string]any{
		"/environment/shell":      "/bin/testsh",
		"/environment/git_status": " M a.txt\n?? AGENTS.md",
		"/environment/date":       "2026-03-14",
		"/instructions":           agents,
		"/now":                    "2026-03-14T10:30:00+01:00",
		"/tasks": []any{
			map[string]any{"id": "SWARM-42", "status": "open", "title": "Add login"},
			map[string]any{"id": "SWARM-44", "status": "in_progress", "title": "Test login"},
		},
	}
	for f, w := range checks {
		if !reflect.DeepEqual(got[f], w) {
			t.Errorf("%s = %#v, want %#v", f, got[f], w)
		}
	}
	if c, _ := got["/environment/recent_commits"].(string); !strings.HasSuffix(c, " Add a.txt") || strings.Contains(c, "\n") {
		t.Errorf("recent_commits = %q, want one line ending in the commit message", c)
	}
	if cwd, _ := got["/environment/cwd"].(string); !filepath.IsAbs(cwd) {
		t.Errorf("cwd = %q, want an absolute path", cwd)
	}

	// The base input wins; gathered fields follow its keys; the result renders.
	out, warns, err := Complete(v, engine.Input{Name: "base", Data: []byte("name: demo\nenvironment:\n  shell: /bin/pinned\n")}, found)
	if err != nil || len(warns) > 0 {
		t.Fatalf("complete: %v %v", err, warns)
	}
	if !strings.HasPrefix(string(out), "{\n  \"name\": \"demo\",\n  \"environment\": {\n    \"shell\": \"/bin/pinned\",\n    \"platform\": ") {
		t.Errorf("completed input does not keep the base first:\n%s", out)
	}
	lib, _ := engine.Load(hostFS(hostProbes))
	res, err := lib.Render(context.Background(), "host", engine.Input{Name: "completed", Data: out})
	if err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	for _, s := range []string{"shell=/bin/pinned\n", "git_status= M a.txt\n", "- SWARM-44: [in_progress] Test login\n"} {
		if !strings.Contains(res.Text, s) {
			t.Errorf("prompt lacks %q:\n%s", s, res.Text)
		}
	}
}

func TestGatherLeavesFieldsOut(t *testing.T) {
	dir := t.TempDir() // no repository, no AGENTS.md
	fixture.FakeCommand(t, "bd", "sleep 30")
	t.Setenv("SHELL", "")
	v := hostVariant(t, hostProbes+
		"  - {field: /extra, command: [promptsmith-no-such-command]}\n")

	found, warns := Run(context.Background(), v, Options{Dir: dir, Now: fixedClock})
	got := values(found)
	for _, f := range []string{"/environment/shell", "/environment/git_status", "/environment/recent_commits", "/instructions", "/tasks", "/extra"} {
		if _, ok := got[f]; ok {
			t.Errorf("%s was filled in: %#v", f, got[f])
		}
	}
	for _, f := range []string{"/environment/platform", "/environment/cwd", "/environment/date", "/now"} {
		if _, ok := got[f]; !ok {
			t.Errorf("%s is missing", f)
		}
	}
	var lines []string
	for _, w := range warns {
		lines = append(lines, w.String())
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"/environment/git_status: git status --short: exit status 128",
		"/tasks: bd ready --json: timed out after 300ms",
		"/extra: promptsmith-no-such-command: promptsmith-no-such-command is not installed (not found on PATH)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	if len(warns) != 4 { // git status, git log, bd, the missing command: an unset variable and a missing file are normal
		t.Errorf("%d warnings, want 4:\n%s", len(warns), text)
	}
}

func TestGatherOptionalCommandMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // bd cannot be found, and neither can git
	v := hostVariant(t, "  - {field: /tasks, command: [bd, ready, --json], parse: json, optional: true}\n")
	found, warns := Run(context.Background(), v, Options{Dir: t.TempDir(), Now: fixedClock})
	if len(found) != 0 || len(warns) != 0 {
		t.Fatalf("an optional command that is not installed gave %v %v", found, warns)
	}
}

func TestGatherJSON(t *testing.T) {
	probe := "  - {field: /tasks, command: [bd], parse: json, keep: [id, status, title]}\n"
	cases := []struct {
		name, script, warning string
		filled                bool
	}{
		{"null says nothing", "echo null", "", false},
		{"no output says nothing", "true", "", false},
		{"not JSON", "echo '{oops'", "/tasks: bd: the output is not JSON", false},
		{"two values", "echo '[] []'", "more than one JSON value", false},
		{"a failure names stderr", "echo 'no beads database found' >&2; exit 1", "/tasks: bd: exit status 1: no beads database found", false},
		{"an empty list", "echo '[]'", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fixture.FakeCommand(t, "bd", c.script)
			found, warns := Run(context.Background(), hostVariant(t, probe), Options{Dir: t.TempDir(), Now: fixedClock})
			if (len(found) == 1) != c.filled {
				t.Errorf("found %v", found)
			}
			switch {
			case c.warning == "" && len(warns) > 0:
				t.Errorf("unexpected warnings %v", warns)
			case c.warning != "" && (len(warns) != 1 || !strings.Contains(warns[0].String(), c.warning)):
				t.Errorf("warnings %v, want %q", warns, c.warning)
			}
		})
	}
}

// A gathered value the schema rejects is left out of the completed input
// with a warning, so that an unexpected answer never breaks the render.
func TestCompleteDropsWhatTheSchemaRejects(t *testing.T) {
	v := hostVariant(t, hostProbes)
	found := []Gathered{
		{Field: "/environment/shell", Value: "/bin/sh"},
		{Field: "/tasks", Value: []any{map[string]any{"id": "SWARM-1", "title": "no status"}}},
		{Field: "/environment/date", Value: "14 March"},
	}
	out, warns, err := Complete(v, engine.Input{Name: "base", Data: []byte(`{"name": "x"}`)}, found)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["tasks"]; ok {
		t.Errorf("tasks kept: %s", out)
	}
	if env := doc["environment"].(map[string]any); env["shell"] != "/bin/sh" || env["date"] != nil {
		t.Errorf("environment = %v", env)
	}
	if len(warns) != 2 || warns[0].Field != "/environment/date" || warns[1].Field != "/tasks" ||
		!strings.Contains(warns[1].Reason, "/tasks/0/status: required field is missing") {
		t.Errorf("warnings %v", warns)
	}

	// A broken base is the caller's to fix: an error, not a warning.
	if _, _, err := Complete(v, engine.Input{Name: "base", Data: []byte("{")}, found); err == nil {
		t.Error("an invalid base input was accepted")
	}
	// A base that is not an object where a gathered field would go wins.
	out, _, err = Complete(v, engine.Input{Name: "base", Data: []byte(`{"environment": "none"}`)}, found[:1])
	if err != nil || !strings.Contains(string(out), `"environment": "none"`) {
		t.Errorf("complete over a scalar: %v\n%s", err, out)
	}
}

func TestGatherManifestErrors(t *testing.T) {
	cases := []struct{ gather, want string }{
		{"  - {field: /extra}\n", "gather[0] (/extra): no source"},
		{"  - {field: /extra, env: A, value: os}\n", "gather[0] (/extra): 2 sources (env, value)"},
		{"  - {field: /extra, command: []}\n", "command is empty"},
		{"  - {field: extra, env: A}\n", "field must be the JSON pointer of one input field"},
		{"  - {field: /tasks/*/id, env: A}\n", "field must be the JSON pointer of one input field"},
		{"  - {field: /extra, value: hostname}\n", `value "hostname" is not one of os, cwd, date, now`},
		{"  - {field: /extra, command: [x], timeout: soon}\n", `timeout "soon" is not a positive Go duration`},
		{"  - {field: /extra, env: A, timeout: 1s}\n", "timeout applies to command probes only"},
		{"  - {field: /extra, env: A, optional: true}\n", "optional applies to command probes only"},
		{"  - {field: /extra, command: [x], parse: yaml}\n", `parse "yaml" is not supported`},
		{"  - {field: /extra, command: [x], keep: [id]}\n", "keep applies to probes with parse: json only"},
		{"  - {field: /extra, file: ../secret}\n", "is not a relative path inside the gather directory"},
		{"  - {field: /environment/shel, env: SHELL}\n", `the schema declares no field "shel" there (schemas/host.schema.json)`},
		{"  - {field: /tasks/0/title, env: SHELL}\n", "the field is inside an array"},
		{"  - {field: /environment, env: A}\n  - {field: /environment/shell, env: SHELL}\n", "gather[1] (/environment/shell): overlaps gather[0] (/environment)"},
		{"  - {field: /extra, comand: [x]}\n", `unknown field "comand"`},
	}
	for _, c := range cases {
		_, err := engine.LoadStrict(hostFS(c.gather))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "templates/host/prompt.yaml") {
			t.Errorf("%q: got %v, want an error naming the manifest and %q", c.gather, err, c.want)
		}
	}
}

// TestGatherFileStaysInsideTheDirectory: a symbolic link or a path out of
// the gathered directory is never followed.
func TestGatherFileStaysInsideTheDirectory(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	v := hostVariant(t, hostProbes)
	found, warns := Run(context.Background(), v, Options{Dir: dir, Now: fixedClock})
	if got, ok := values(found)["/instructions"]; ok {
		t.Fatalf("a link out of the directory was followed: %q", got)
	}
	var text []string
	for _, w := range warns {
		text = append(text, w.String())
	}
	if !strings.Contains(strings.Join(text, "\n"), "/instructions: AGENTS.md:") {
		t.Errorf("no warning names the refused file:\n%s", strings.Join(text, "\n"))
	}
}

// TestGatheredJSONKeepsKeyOrder: JSON a probe reads is decoded by the
// engine's decoder, so its objects keep the order the tool printed them
// in, in the completed input and in the prompt; keep: drops keys without
// disturbing the others.
func TestGatheredJSONKeepsKeyOrder(t *testing.T) {
	fixture.FakeCommand(t, "bd", `echo '[{"title": "Fix", "extra": 1, "status": "open", "id": "b-1"}]'`)
	v := hostVariant(t, "  - {field: /tasks, command: [bd], parse: json, keep: [id, status, title]}\n")
	found, warns := Run(context.Background(), v, Options{Dir: t.TempDir(), Now: fixedClock})
	if len(found) != 1 || len(warns) != 0 {
		t.Fatalf("found %v, warnings %v", found, warns)
	}
	out, _, err := Complete(v, engine.Input{Name: "base", Data: []byte(`{"name": "x"}`)}, found)
	if err != nil {
		t.Fatal(err)
	}
	want := `"tasks": [
    {
      "title": "Fix",
      "status": "open",
      "id": "b-1"
    }
  ]`
	if !strings.Contains(string(out), want) {
		t.Errorf("completed input:\n%s\nwant the tool's order:\n%s", out, want)
	}
}
