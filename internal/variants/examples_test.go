package variants_test

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestExamplesNameTheirSchema: every YAML example starts with the line that
// makes an editor with the common YAML extension validate it against its
// variant's input schema (the manifest's schema:), by a path relative to
// the example. A JSON example cannot hold a comment and is left as it is.
func TestExamplesNameTheirSchema(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	checked := 0
	for _, name := range lib.Names() {
		v, err := lib.Variant(name)
		if err != nil {
			t.Fatal(err)
		}
		schema := v.Manifest().Schema
		want := "# yaml-language-server: $schema=../../../schemas/" + schema + ".schema.json\n"
		if _, err := fs.Stat(promptsmith.FS(), path.Join("schemas", schema+".schema.json")); err != nil {
			t.Errorf("%s: the schema the examples' line names is not there: %v", name, err)
		}
		files, _ := fs.Glob(promptsmith.FS(), path.Join("templates", name, "examples", "*"))
		for _, f := range files {
			if !strings.HasSuffix(f, ".yaml") && !strings.HasSuffix(f, ".yml") {
				continue
			}
			data, err := fs.ReadFile(promptsmith.FS(), f)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if !strings.HasPrefix(string(data), want) {
				first, _, _ := strings.Cut(string(data), "\n")
				t.Errorf("%s starts with %q, want the line %q", f, first, strings.TrimSuffix(want, "\n"))
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d examples checked", checked)
	}
}
