package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// TestServeRepoRefusals: --repo goes with none of --templates, --watch
// and --ref, and the label flags need it; nothing is served.
func TestServeRepoRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--repo", ".", "--label", "a=main", "--templates", "."}, "--repo and --templates"},
		{[]string{"serve", "--repo", ".", "--label", "a=main", "--watch"}, "--watch does not apply to --repo"},
		{[]string{"serve", "--repo", ".", "--label", "a=main", "--ref", "main"}, "--ref does not apply to --repo"},
		{[]string{"serve", "--label", "a=main"}, "--label needs --repo"},
		{[]string{"serve", "--poll-interval", "1s"}, "--poll-interval needs --repo"},
		{[]string{"serve", "--audit-inputs"}, "--audit-inputs needs --audit"},
	}
	for _, c := range cases {
		if r := runCLI(t, "", c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("render %s: exit %d\n%s", strings.Join(c.args, " "), r.code, r.stderr)
		}
	}
}

// TestServeRepoReplay: render serve --repo serves production (the prod
// tag, by --label) and staging (main, by PROMPTSMITH_LABELS) side by
// side, records each prompt with its label, commit and input; SIGHUP
// after the tag moved promotes without a restart. render audit replay
// then renders a recorded prompt again byte for byte at its commit, and
// reports the diff at another ref (exit 1). On SQLite and PostgreSQL.
func TestServeRepoReplay(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { serveRepoReplay(t, filepath.Join(t.TempDir(), "audit.db")) })
	t.Run("postgres", func(t *testing.T) { serveRepoReplay(t, testpostgres.Schema(t, "render_replay_")) })
}

func serveRepoReplay(t *testing.T, target string) {
	repo := testrepo.NoteHistory(t)
	prod := repo.RevParse("prod")
	t.Setenv(labels.EnvVar, "staging=refs/heads/main")
	t.Setenv(auditKeyEnv, "")
	srv := startServe(t, "--repo", repo.Dir, "--label", "production=refs/tags/prod", "--default-label", "production",
		"--poll-interval", "0", "--audit", target, "--audit-inputs")

	render := func(label, want string) (commit string) {
		t.Helper()
		return renderAt(t, srv.addr, "/v1/render/note", label, testrepo.NoteInput, want)
	}
	if c := render("", testrepo.HelloV1); c != prod {
		t.Errorf("production's commit: %s, want %s", c, prod)
	}
	render("staging", testrepo.HelloMore)
	// Fitted to a budget, which replay fits to again.
	const budgeted = "# Note\n\nBudget\n"
	renderAt(t, srv.addr, "/v1/render/note?max_tokens=1000&tokens=o200k_base", "", `{"title": "Budget"}`, budgeted)

	repo.Git("tag", "-f", "prod", "main")
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	srv.waitLine(t, "label serves a new commit")
	render("", testrepo.HelloMore)
	srv.terminate(t)
	srv.wait(t)

	r := runCLI(t, "", "audit", "show", audit.Hash(budgeted), "--audit", target, "--format", "json")
	var e audit.Entry
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.MaxTokens != 1000 || e.Tokens != "o200k_base" {
		t.Errorf("the budgeted prompt: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "replay", audit.Hash(budgeted), "--audit", target, "--repo", repo.Dir)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "identical: ") {
		t.Errorf("replay of a budgeted render: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	replayChecks(t, target, repo, prod)
}

// renderAt renders input at path with the label (none: the default),
// which must answer want, and returns the commit the answer names.
func renderAt(t *testing.T, addr, path, label, input, want string) (commit string) {
	t.Helper()
	header := []string{"Content-Type", "application/json"}
	if label != "" {
		header = append(header, "X-Promptsmith-Label", label)
	}
	resp, body := fixture.Do(t, http.DefaultClient, "POST", "http://"+addr+path, input, header...)
	var res struct{ Text string }
	json.Unmarshal(body, &res)
	if resp.StatusCode != 200 || res.Text != want {
		t.Fatalf("render %q: %s %.300s", label, resp.Status, body)
	}
	return resp.Header.Get("X-Promptsmith-Commit")
}

// replayChecks replays production's first prompt, recorded at prod, at its
// commit (identical) and at main (differs), as text and as JSON.
func replayChecks(t *testing.T, target string, repo *testrepo.Repo, prod string) {
	t.Helper()
	hash := audit.Hash(testrepo.HelloV1)
	r := runCLI(t, "", "audit", "show", hash, "--audit", target, "--format", "json")
	var e audit.Entry
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Label != "production" || e.Commit != prod || e.Input == "" {
		t.Fatalf("the recorded prompt: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "replay", hash, "--audit", target, "--repo", repo.Dir)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "identical: "+e.Hash[:12]+" (note) renders byte for byte the same at "+prod) {
		t.Errorf("replay at the recorded commit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "replay", hash, "--audit", target, "--repo", repo.Dir, "--ref", "main")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "differs: ") || !strings.Contains(r.stdout, "\n+Say more.\n") {
		t.Errorf("replay at main: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "audit", "replay", hash, "--audit", target, "--repo", repo.Dir, "--ref", "main", "--format", "json")
	var rep replayReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 || rep.Identical || rep.Commit != repo.RevParse("main") || rep.Diff == "" {
		t.Errorf("replay --format json: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
}
