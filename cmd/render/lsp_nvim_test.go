package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/internal/fixture"
)

// TestLspNeovim runs render lsp under a real editor's client: Neovim's
// built-in one, headless (testdata/lsp_nvim.lua). It opens the shipped
// templates/space/goals.md.tmpl, types a misspelt field, and reads back
// the diagnostic, a completion list, a hover and a definition; then jumps
// from trigger.md.tmpl's template "_admin.tmpl" to the partial. Without
// nvim it is skipped, except under CI=true, where .ci/run installs
// Debian's neovim and the test must run.
func TestLspNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		fixture.Missing(t, "nvim is not installed (Debian: apt-get install neovim)")
	}
	root := t.TempDir()
	err = fs.WalkDir(promptsmith.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() {
				return os.MkdirAll(filepath.Join(root, p), 0o755)
			}
			return err
		}
		data, err := fs.ReadFile(promptsmith.FS(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, p), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/lsp_nvim.lua")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PROMPTSMITH_RENDER="+renderBinary(t), "PROMPTSMITH_ROOT="+root, "PROMPTSMITH_OUT="+out,
		"XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("nvim: %v\n%s", err, output)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no report: %v\n%s", err, output)
	}
	var report struct {
		Steps      []string
		Error      string
		OK         bool
		Diagnostic struct {
			Message  string
			Lnum     int
			Col      int
			EndCol   int `json:"end_col"`
			Severity int
		}
		Completion []string
		Hover      string
		Definition struct {
			URI  string
			Line int
		}
		Partial string
	}
	if err := json.Unmarshal(data, &report); err != nil {
		t.Fatalf("report %s: %v", data, err)
	}
	t.Logf("neovim: steps %v; diagnostic %q at %d:%d-%d; completions %v; hover %q; definition %s:%d; partial %s",
		report.Steps, report.Diagnostic.Message, report.Diagnostic.Lnum, report.Diagnostic.Col, report.Diagnostic.EndCol,
		report.Completion, report.Hover, report.Definition.URI, report.Definition.Line, report.Partial)
	if !report.OK {
		t.Fatalf("the script stopped after %v: %s\n%s", report.Steps, report.Error, output)
	}
	goalsLine := 0
	tmpl, _ := os.ReadFile(filepath.Join(root, "templates", "space", "goals.md.tmpl"))
	for i, l := range strings.Split(string(tmpl), "\n") {
		if strings.HasPrefix(l, "GOALS:") {
			goalsLine = i
		}
	}
	if !strings.Contains(report.Diagnostic.Message, `did you mean "name"`) || report.Diagnostic.Severity != 1 ||
		report.Diagnostic.Lnum != goalsLine || report.Diagnostic.EndCol-report.Diagnostic.Col != len("nmae") {
		t.Errorf("diagnostic %+v", report.Diagnostic)
	}
	for _, want := range []string{"name", "entityId", "systemInstruction", "isAdmin"} {
		if !slices.Contains(report.Completion, want) {
			t.Errorf("completion of .agent. %v lacks %s", report.Completion, want)
		}
	}
	if !strings.Contains(report.Hover, "**agent**") || !strings.Contains(report.Hover, "The agent the prompt is for") {
		t.Errorf("hover %q", report.Hover)
	}
	if !strings.HasSuffix(report.Partial, "/templates/space/_admin.tmpl") {
		t.Errorf("the partial's definition is %q", report.Partial)
	}
	schema, _ := os.ReadFile(filepath.Join(root, "schemas", "space.schema.json"))
	lines := strings.Split(string(schema), "\n")
	if !strings.HasSuffix(report.Definition.URI, "/schemas/space.schema.json") || report.Definition.Line >= len(lines) ||
		!strings.Contains(lines[report.Definition.Line], `"agent"`) {
		t.Errorf("definition %+v", report.Definition)
	}
}
