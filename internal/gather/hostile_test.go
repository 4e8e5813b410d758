package gather

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// hostileRepo is a repository whose configuration tries every way to make
// git status and git log run a program: each writes a file of its own
// under marks when it runs.
func hostileRepo(t *testing.T) (dir, marks string) {
	t.Helper()
	repo := testrepo.New(t)
	marks = t.TempDir()
	script := func(name string) string { return markingScript(t, marks, name) }
	repo.Commit("Add a.txt", "a.txt", "one\n", ".gitattributes", "* filter=evil diff=evil\n")
	for key, value := range map[string]string{
		"core.fsmonitor":       script("fsmonitor"),
		"filter.evil.clean":    script("clean"),
		"filter.evil.process":  script("process"),
		"filter.evil.required": "true",
		"diff.evil.textconv":   script("textconv"),
		"diff.external":        script("external"),
		"core.pager":           script("pager"),
		"log.showSignature":    "true",
		"gpg.program":          script("gpg"),
	} {
		repo.Git("config", key, value)
	}
	included := filepath.Join(t.TempDir(), "included")
	if err := os.WriteFile(included, []byte("[filter \"other\"]\n\tclean = "+script("included-clean")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo.Git("config", "include.path", included)
	repo.Write(".git/info/attributes", "b.txt filter=other\n")
	hooks := filepath.Join(repo.Dir, ".git", "hooks")
	for _, hook := range []string{"post-index-change", "pre-commit", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(hooks, hook), []byte("#!/bin/sh\ntouch "+filepath.Join(marks, hook)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Changed content, and a stat git cannot trust, so that status reads
	// the files (through the clean filter, were it allowed).
	repo.Write("a.txt", "two\n")
	repo.Write("b.txt", "new\n")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(repo.Dir, "a.txt"), old, old)
	return repo.Dir, marks
}

// TestGitProbesRunNothingOfTheRepository: a repository's configuration,
// attributes and hooks cannot make the git probes run a program.
func TestGitProbesRunNothingOfTheRepository(t *testing.T) {
	dir, marks := hostileRepo(t)
	v := hostVariant(t, hostProbes)
	found, warns := Run(context.Background(), v, Options{Dir: dir, Now: fixedClock})
	if ran := marked(marks); len(ran) > 0 {
		t.Fatalf("git ran the repository's programs: %v", ran)
	}
	for _, w := range warns {
		if strings.Contains(w.Field, "git_status") || strings.Contains(w.Field, "recent_commits") {
			t.Errorf("warning: %s", w)
		}
	}
	got := values(found)
	if s := got["/environment/git_status"]; s != " M a.txt\n?? b.txt" {
		t.Errorf("git status = %q", s)
	}
	if s, _ := got["/environment/recent_commits"].(string); !strings.HasSuffix(s, " Add a.txt") {
		t.Errorf("git log = %q", s)
	}
	// The same git, without the probe's settings, runs them: the test
	// repository is as hostile as it means to be.
	if out, err := runPlain(dir, "git", "status", "--short"); err != nil {
		t.Logf("plain git status: %v %s", err, out)
	}
	if ran, _ := os.ReadDir(marks); len(ran) == 0 {
		t.Error("plain git status ran nothing: the test repository does not test anything")
	}
}

// TestProbesObeyCancellation: cancelled, Run returns at once, whatever its
// probes are waiting for.
func TestProbesObeyCancellation(t *testing.T) {
	fixture.FakeCommand(t, "bd", "sleep 600")
	v := hostVariant(t, "  - {field: /extra, command: [bd], timeout: 10m}\n  - {field: /instructions, file: AGENTS.md}\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []Warning, 1)
	go func() {
		_, warns := Run(ctx, v, Options{Dir: t.TempDir(), Now: fixedClock})
		done <- warns
	}()
	cancel()
	select {
	case warns := <-done:
		if len(warns) == 0 || warns[0].String() != "/extra: bd: cancelled" {
			t.Errorf("warnings %v", warns)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a cancelled gather did not return")
	}
}

// runPlain runs a command in dir as a user would, without the probes'
// settings.
func runPlain(dir string, argv ...string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestGitProbesFetchNothing: git log -p in a partial clone fetches the
// blobs it lacks from the promisor remote, and an ext:: remote is a
// command. GIT_NO_LAZY_FETCH stops that from git 2.39.4 on; before, only
// protocol.allow=never did, and not when the repository's own
// configuration allowed the protocol by name (protocol.ext.allow), which
// wins over it. Nor did anything stop an alias of the repository's from
// running a command.
func TestGitProbesFetchNothing(t *testing.T) {
	origin := testrepo.New(t)
	origin.Commit("Add a.txt", "a.txt", "one\n")
	origin.Git("config", "uploadpack.allowFilter", "true")
	dir := filepath.Join(t.TempDir(), "clone")
	origin.Git("-c", "protocol.file.allow=always", "clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+origin.Dir, dir)
	marks := t.TempDir()
	for key, value := range map[string]string{
		"remote.origin.url":  "ext::sh -c touch% " + filepath.Join(marks, "fetch"),
		"protocol.ext.allow": "always",
		"alias.summary":      "!touch " + filepath.Join(marks, "alias"),
	} {
		origin.Git("-C", dir, "config", key, value)
	}
	v := hostVariant(t, "  - {field: /environment/recent_commits, command: [git, log, -p], timeout: 10s}\n"+
		"  - {field: /extra, command: [git, summary], timeout: 10s}\n")
	found, warns := Run(context.Background(), v, Options{Dir: dir, Now: fixedClock})
	if ran, _ := os.ReadDir(marks); len(ran) > 0 {
		t.Fatalf("git ran the repository's commands: %v (%v %v)", ran, found, warns)
	}
	if len(found) != 0 || len(warns) != 2 {
		t.Errorf("found %v, warnings %v; want both to fail", found, warns)
	}
	// Without GIT_NO_LAZY_FETCH, as for a git that does not know it, the
	// settings stop the fetch all the same.
	g, err := runner{dir: dir}.gitFor(context.Background(), "git")
	if err != nil {
		t.Fatal(err)
	}
	g.Env = slices.DeleteFunc(slices.Clone(g.Env), func(kv string) bool { return strings.HasPrefix(kv, "GIT_NO_LAZY_FETCH=") })
	if out, err := g.command(context.Background(), "log", "-p").CombinedOutput(); err == nil {
		t.Errorf("git log -p fetched: %s", out)
	}
	if ran, _ := os.ReadDir(marks); len(ran) > 0 {
		t.Fatalf("git ran the repository's commands: %v", ran)
	}
	// The same git, without the probe's settings, runs them.
	runPlain(dir, "git", "log", "-p")
	runPlain(dir, "git", "summary")
	if ran, _ := os.ReadDir(marks); len(ran) != 2 {
		t.Errorf("plain git ran %v: the test repository does not test everything", ran)
	}
}
