package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// hostLibrary writes a library with one small variant whose probes read an
// environment variable, a file, git and a bd command that times out quickly.
func hostLibrary(t *testing.T) string {
	t.Helper()
	return fixture.WriteFiles(t, map[string]string{
		"schemas/host.schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "additionalProperties": false, "required": ["name"],
  "properties": {
    "name": {"type": "string", "description": "Who the prompt is for."},
    "shell": {"type": "string", "description": "$SHELL."},
    "git_status": {"type": "string", "description": "git status --short."},
    "instructions": {"type": "string", "description": "AGENTS.md."},
    "tasks": {"type": "array", "description": "bd ready --json.", "items": {"type": "object", "additionalProperties": false,
      "properties": {"id": {"type": "string", "description": "Id."}, "title": {"type": "string", "description": "Title."}}}}
  }
}`,
		"templates/host/prompt.yaml": `sections: [main]
gather:
  - {field: /shell, env: SHELL}
  - {field: /git_status, command: [git, status, --short]}
  - {field: /instructions, file: AGENTS.md}
  - {field: /tasks, command: [bd, ready, --json], parse: json, keep: [id, title], optional: true, timeout: 200ms}
`,
		"templates/host/main.md.tmpl":        "# {{ .name }}\n{{ with get . \"shell\" }}shell {{ . }}\n{{ end }}{{ with get . \"tasks\" }}{{ range . }}- {{ .id }} {{ .title }}\n{{ end }}{{ end }}",
		"templates/host/examples/basic.yaml": "name: basic\n",
	})
}

func TestGatherCommand(t *testing.T) {
	lib := hostLibrary(t)
	dir := t.TempDir() // not a repository: git status fails with a warning
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Run make test.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", "/bin/testsh")

	t.Run("prints the completed input, base fields first and winning", func(t *testing.T) {
		fixture.FakeCommand(t, "bd", `echo '[{"id": "T-1", "title": "Do it", "status": "open", "priority": 0}]'`)
		r := runCLI(t, "name: demo\nshell: /bin/pinned\n", "gather", "host", "--templates", lib, "--dir", dir, "-i", "-")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		want := `{
  "name": "demo",
  "shell": "/bin/pinned",
  "instructions": "Run make test.\n",
  "tasks": [
    {
      "id": "T-1",
      "title": "Do it"
    }
  ]
}
`
		if r.stdout != want {
			t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
		}
		if _, err := exec.LookPath("git"); err == nil && !strings.HasPrefix(r.stderr, "render: warning: /git_status: git status --short: exit status 128") {
			t.Errorf("stderr: %q", r.stderr)
		}
		// The output is an input: render takes it as it is.
		r2 := runCLI(t, r.stdout, "host", "--templates", lib, "-i", "-")
		if r2.code != 0 || r2.stdout != "# demo\nshell /bin/pinned\n- T-1 Do it\n" {
			t.Errorf("render of the gathered input: exit %d\n%s%s", r2.code, r2.stdout, r2.stderr)
		}
	})

	t.Run("a hanging command is killed and left out", func(t *testing.T) {
		fixture.FakeCommand(t, "bd", "sleep 30")
		r := runCLI(t, "", "gather", "host", "--templates", lib, "--dir", dir, "--example", "basic", "--render")
		if r.code != 0 || r.stdout != "# basic\nshell /bin/testsh\n" {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "render: warning: /tasks: bd ready --json: timed out after 200ms; killed\n") {
			t.Errorf("stderr: %q", r.stderr)
		}
	})

	t.Run("warnings as JSON lines", func(t *testing.T) {
		fixture.FakeCommand(t, "bd", "exit 3")
		r := runCLI(t, "", "gather", "host", "--templates", lib, "--dir", dir, "--format", "json")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var found bool
		for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			var w struct {
				Warning struct{ Field, Reason string }
			}
			if err := json.Unmarshal([]byte(line), &w); err != nil {
				t.Fatalf("not a JSON line: %q", line)
			}
			found = found || (w.Warning.Field == "/tasks" && w.Warning.Reason == "bd ready --json: exit status 3")
		}
		if !found {
			t.Errorf("stderr: %s", r.stderr)
		}
	})

	t.Run("a missing optional command says nothing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		r := runCLI(t, "", "gather", "host", "--templates", lib, "--dir", dir)
		if r.code != 0 || strings.Contains(r.stderr, "/tasks") {
			t.Errorf("exit %d, stderr: %s", r.code, r.stderr)
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"gather", "host", "--templates", lib, "--dir", filepath.Join(dir, "nope")}, "is not a directory"},
			{[]string{"gather", "hots", "--templates", lib, "--dir", dir}, `did you mean "host"?`},
			{[]string{"gather", "host", "--templates", lib, "--dir", dir, "--format", "xml"}, "--format must be text or json"},
			{[]string{"gather", "host", "--templates", lib, "--dir", dir, "--render"}, "/name: required field is missing"},
		} {
			r := runCLI(t, "", c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%v: exit %d, stderr: %s", c.args, r.code, r.stderr)
			}
		}
	})
}

// TestGatherRefusesARepositoryOutsideDir: a .git file in --dir pointing at
// another repository is refused with a warning that names it, and nothing
// of that repository is printed.
func TestGatherRefusesARepositoryOutsideDir(t *testing.T) {
	lib := hostLibrary(t)
	other := testrepo.New(t)
	other.Commit("SECRET commit", "SECRET.txt", "SECRET\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+other.Dir+"/.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture.FakeCommand(t, "bd", "true")
	r := runCLI(t, "name: demo\n", "gather", "host", "--templates", lib, "--dir", dir, "-i", "-")
	want := "render: warning: /git_status: git status --short: refused: the .git file at " + filepath.Join(dir, ".git") +
		" points at " + other.Dir + "/.git, outside --dir\n"
	if r.code != 0 || r.stderr != want || strings.Contains(r.stdout, "SECRET") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %q\nwant:   %q", r.code, r.stdout, r.stderr, want)
	}
}

// The swarm variant's own probes, end to end: a repository with a commit and
// a change, AGENTS.md and a bd that answers.
func TestGatherSwarm(t *testing.T) {
	repo := testrepo.New(t)
	dir := repo.Dir
	repo.Commit("Start the service", "main.go", "package main\n")
	repo.Write("main.go", "package main\n\nfunc main() {}\n")
	repo.Write("AGENTS.md", "# Rules\n\nRun `go test ./...`.\n")
	fixture.FakeCommand(t, "bd", `echo '[{"id": "SWARM-42", "title": "Implement user authentication endpoint", "status": "open", "priority": 1, "issue_type": "task"}]'`)

	r := runCLI(t, "", "gather", "swarm", "--example", "minimal", "--dir", dir, "--render")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("warnings: %s", r.stderr)
	}
	// What each probe gathered is in the prompt, however the templates
	// word what stands around it.
	for _, want := range []string{
		dir,
		" M main.go\n?? AGENTS.md\n",
		" Start the service\n",
		"# Rules\n\nRun `go test ./...`.\n",
		"SWARM-42", "Implement user authentication endpoint",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestGatherRenderErrorsPointAtTheBase: with --render, an error in the base
// input is reported at the base file's line, not in the input completed in
// memory.
func TestGatherRenderErrorsPointAtTheBase(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "base.yaml")
	os.WriteFile(base, []byte("agent_name: a\nagent_names: [a]\nagent_prompt: p\nsession_id: s\nsession_seq: \"x\"\nnow: 2026-01-01T00:00:00Z\n"), 0o644)
	r := runCLI(t, "", "gather", "swarm", "-i", base, "--dir", t.TempDir(), "--render")
	if r.code != 2 || !strings.Contains(r.stderr, base+":5:1: /session_seq: expected integer") || strings.Contains(r.stderr, "gathered input:") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
