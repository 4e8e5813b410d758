package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// TestDocsServeRepoExamples: every render serve --repo command of
// docs/operations.md starts as written, with the repository, the labels
// file the text describes and the variables the line sets, and serves
// production (refs/tags/prod) to a request that names no label.
func TestDocsServeRepoExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var examples []string
	for line := range strings.Lines(string(doc)) {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "render serve --repo "); i >= 0 && (i == 0 || strings.HasPrefix(line, "PROMPTSMITH_")) {
			examples = append(examples, line)
		}
	}
	if len(examples) < 3 {
		t.Fatalf("docs/operations.md has %d render serve --repo examples, want its three", len(examples))
	}
	repo := testrepo.NoteHistory(t)
	labelsFile := filepath.Join(t.TempDir(), "labels.yaml")
	// The file as the text describes it: labels production and staging,
	// production first.
	if err := os.WriteFile(labelsFile, []byte("labels:\n  production: refs/tags/prod\n  staging: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			t.Setenv(labels.EnvVar, "")
			fields := strings.Fields(ex)
			for len(fields) > 0 && fields[0] != "render" {
				name, value, _ := strings.Cut(fields[0], "=")
				t.Setenv(name, value)
				fields = fields[1:]
			}
			args := fields[2:] // after render serve
			for i := 1; i < len(args); i++ {
				switch args[i-1] {
				case "--repo":
					args[i] = repo.Dir
				case "--labels-file":
					args[i] = labelsFile
				}
			}
			srv := startServe(t, args...)
			renderAt(t, srv.addr, "/v1/render/note", "", testrepo.NoteInput, testrepo.HelloV1)
			renderAt(t, srv.addr, "/v1/render/note", "staging", testrepo.NoteInput, testrepo.HelloMore)
			srv.terminate(t)
			srv.wait(t)
		})
	}
}
