package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"go.lsp.dev/protocol"
)

// hostileLibrary is a folder with one variant, "hostile", whose one
// template recurses through template and include without end, and one
// example.
func hostileLibrary(t *testing.T) string {
	t.Helper()
	return fixture.WriteFiles(t, map[string]string{
		"schemas/hostile.schema.json":          `{"type": "object"}`,
		"templates/hostile/prompt.yaml":        "schema: hostile\nsections: [body]\n",
		"templates/hostile/body.md.tmpl":       `{{ define "a" }}{{ if lt . 90000 }}{{ template "a" (add . 1) }}{{ else }}{{ include "a" 0 }}{{ end }}{{ end }}{{ template "a" 0 }}`,
		"templates/hostile/examples/some.json": `{}`,
	})
}

// TestLspSurvivesRecursion: rendering an example of a template that calls
// itself through template and include in turn answers with the render's
// error, and the server goes on.
func TestLspSurvivesRecursion(t *testing.T) {
	t.Parallel()
	c := start(t, hostileLibrary(t))
	body := "templates/hostile/body.md.tmpl"
	c.open(body)
	lenses := c.codeLenses(body)
	if len(lenses) == 0 || lenses[0].Command == nil {
		t.Fatalf("code lenses %+v", lenses)
	}
	for range 2 {
		err := c.call(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: lenses[0].Command.Command, Arguments: lenses[0].Command.Arguments}, nil)
		if err == nil || !strings.Contains(err.Error(), "too deeply") {
			t.Errorf("render: %v", err)
		}
	}
	c.diagnostics(body, has("too deeply"))
}

// TestLspRefusesALargeTemplate: a template over the file limit is refused
// naming it, before it is parsed, when the library loads, and a render
// asked of it answers with that error.
func TestLspRefusesALargeTemplate(t *testing.T) {
	t.Parallel()
	dir := hostileLibrary(t)
	body := "templates/hostile/body.md.tmpl"
	big := strings.Repeat("{{ if . }}x{{ end }}\n", 60000) // 1.2 MB, over the default 1 MiB
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(body)), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, dir)
	c.open(body)
	err := c.call(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: "promptsmith.renderExample", Arguments: []any{string(c.uri(body)), "some"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "a library file may hold") {
		t.Errorf("render: %v", err)
	}
	c.diagnostics(body, has("a library file may hold"))
}

// TestLspReadsNoFileOverTheLimit: a file on disk over the file limit, not
// open in the editor, is not read to place its diagnostic, which stands at
// its start: a folder an editor opens may hold a file of gigabytes.
func TestLspReadsNoFileOverTheLimit(t *testing.T) {
	t.Parallel()
	dir := hostileLibrary(t)
	big := "templates/hostile/big.md.tmpl"
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(big)), []byte(strings.Repeat("x", 1200000)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, dir)
	c.open("templates/hostile/body.md.tmpl")
	ds := c.diagnostics(big, has("a library file may hold"))
	for _, d := range ds {
		if d.Range.End.Line != 0 || d.Range.End.Character != 0 {
			t.Errorf("the diagnostic of a file over the limit spans %+v: the file was read to place it", d.Range)
		}
	}
}
