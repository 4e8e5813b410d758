package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestVersion: render version names the program's version and the hash of
// the library it renders with, the provenance every Result carries.
func TestVersion(t *testing.T) {
	t.Parallel()
	p := fixture.Library(t).Provenance()
	r := runCLI(t, "", "version")
	if r.code != 0 || r.stdout != "render "+engine.Version()+"\nlibrary "+p.Library+"\n" {
		t.Errorf("exit %d: %q %s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "version", "--format", "json")
	var got map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got["library"] != p.Library || got["library_short"] != p.Short ||
		got["version"] != engine.Version() {
		t.Errorf("%v %q", err, r.stdout)
	}
	if r := runCLI(t, "", "version", "--templates", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "templates") {
		t.Errorf("a folder without a library: %d %s", r.code, r.stderr)
	}
}
