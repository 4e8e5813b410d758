package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestLspNeovim runs render lsp under a real editor's client: Neovim's
// built-in one, headless (testdata/lsp_nvim.lua), on a library of its own
// (fixture.Shop), not the shipped one, whose wording may change. It opens
// templates/shop/main.md.tmpl, types a misspelt field, and reads back the
// diagnostic, a completion list, a hover and a definition; completes
// inside range .items, range $e := .items, range take 5 .items and nested
// ranges; jumps from template "_item.tmpl" to the partial; and creates a
// new variant with a list of objects, saving its files, and completes
// inside its range. Without nvim it is skipped, except under CI=true,
// where .ci/run installs Debian's neovim and the test must run.
func TestLspNeovim(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		fixture.Missing(t, "nvim is not installed (Debian: apt-get install neovim)")
	}
	root := fixture.Shop(t)
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
		Ranges  map[string][]string
		Partial string
		Variant []string
	}
	if err := json.Unmarshal(data, &report); err != nil {
		t.Fatalf("report %s: %v", data, err)
	}
	t.Logf("neovim: steps %v; diagnostic %q at %d:%d-%d; completions %v; hover %q; definition %s:%d; ranges %v; partial %s; new variant %v",
		report.Steps, report.Diagnostic.Message, report.Diagnostic.Lnum, report.Diagnostic.Col, report.Diagnostic.EndCol,
		report.Completion, report.Hover, report.Definition.URI, report.Definition.Line, report.Ranges, report.Partial, report.Variant)
	if !report.OK {
		t.Fatalf("the script stopped after %v: %s\n%s", report.Steps, report.Error, output)
	}
	ownerLine := slices.IndexFunc(strings.Split(fixture.ShopMain, "\n"), func(l string) bool { return strings.HasPrefix(l, "Owner:") })
	if !strings.Contains(report.Diagnostic.Message, `did you mean "name"`) || report.Diagnostic.Severity != 1 ||
		report.Diagnostic.Lnum != ownerLine || report.Diagnostic.EndCol-report.Diagnostic.Col != len("nmae") {
		t.Errorf("diagnostic %+v", report.Diagnostic)
	}
	contains := func(what string, got []string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%s completes %v, without %s", what, got, w)
			}
		}
	}
	contains(".owner.", report.Completion, "name", "email")
	item := []string{"sku", "name", "price", "kind", "tags", "maker"}
	for _, form := range []struct{ name, text string }{
		{"range", "{{ range .items }}{{ ."},
		{"variable", "{{ range $e := .items }}{{ $e."},
		{"take", "{{ range take 5 .items }}{{ ."},
		{"nested", "{{ range .aisles }}{{ range .items }}{{ ."},
	} {
		contains(form.text, report.Ranges[form.name], item...)
		if slices.Contains(report.Ranges[form.name], "title") {
			t.Errorf("%s completes the input's fields: %v", form.text, report.Ranges[form.name])
		}
	}
	contains("{{ range .aisles }}{{ .", report.Ranges["outer"], "heading", "items")
	contains("the new variant's {{ range $m := .members }}{{ $m.", report.Variant, "handle", "role")
	if !strings.Contains(report.Hover, "**owner**") || !strings.Contains(report.Hover, "Who runs the shop.") {
		t.Errorf("hover %q", report.Hover)
	}
	if !strings.HasSuffix(report.Partial, "/templates/shop/_item.tmpl") {
		t.Errorf("the partial's definition is %q", report.Partial)
	}
	lines := strings.Split(fixture.ShopFiles()["schemas/shop.schema.json"], "\n")
	if !strings.HasSuffix(report.Definition.URI, "/schemas/shop.schema.json") || report.Definition.Line >= len(lines) ||
		!strings.Contains(lines[report.Definition.Line], `"owner"`) {
		t.Errorf("definition %+v", report.Definition)
	}
}
