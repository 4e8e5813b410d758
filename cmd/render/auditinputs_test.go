package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// TestRenderAuditInputs: render --audit --audit-inputs on the command line
// keeps the input with the prompt, as render serve does, so that render
// audit replay renders it again; without --audit it is refused.
func TestRenderAuditInputs(t *testing.T) {
	repo := testrepo.NoteHistory(t)
	repo.Git("checkout", "-q", "prod")
	db := filepath.Join(t.TempDir(), "audit.db")
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, []byte(testrepo.NoteInput), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(auditKeyEnv, "")
	r := runCLI(t, "", "note", "-i", in, "--templates", repo.Dir, "--audit", db, "--audit-inputs")
	if r.code != 0 || r.stdout != testrepo.HelloV1 {
		t.Fatalf("render --audit-inputs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	hash := audit.Hash(testrepo.HelloV1)
	r = runCLI(t, "", "audit", "replay", hash, "--audit", db, "--repo", repo.Dir, "--ref", "prod")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "identical: ") {
		t.Errorf("replay of a prompt the command line recorded: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "note", "-i", in, "--templates", repo.Dir, "--audit-inputs")
	if r.code != 2 || !strings.Contains(r.stderr, "--audit-inputs needs --audit") {
		t.Errorf("--audit-inputs without --audit: exit %d\n%s", r.code, r.stderr)
	}
}
