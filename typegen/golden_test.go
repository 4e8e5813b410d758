package typegen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptsmith/promptsmith/internal/fixture"
	"github.com/promptsmith/promptsmith/internal/golden/goldentest"
)

// goldenDir holds the generated types of every variant, so that a schema
// change shows up as a diff of the types callers get.
var goldenDir = filepath.Join("..", "testdata", "golden", "types")

// langExt is the file extension of each language's output.
func langExt(l Lang) string {
	if l == Python {
		return ".py"
	}
	return ".ts"
}

// generated returns the types of every variant of the embedded library in
// lang, by variant name.
func generated(t *testing.T, lang Lang) map[string][]byte {
	t.Helper()
	lib := fixture.Library(t)
	out := map[string][]byte{}
	for _, name := range lib.Names() {
		v, err := lib.Variant(name)
		if err != nil {
			t.Fatal(err)
		}
		src, err := Generate(lang, name, v.SchemaJSON())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = src
	}
	return out
}

// TestGoldenTypes compares the types of every variant with
// testdata/golden/types/<variant>.ts and .py.
// A file there of no variant is an error, or, under -update, removed.
func TestGoldenTypes(t *testing.T) {
	want := map[string]bool{}
	for _, lang := range Langs() {
		for name, src := range generated(t, lang) {
			path := filepath.Join(goldenDir, name+langExt(lang))
			want[path] = true
			goldentest.Check(t, path, src)
		}
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*"))
	for _, f := range files {
		if want[f] {
			continue
		}
		if goldentest.Updating() {
			os.Remove(f)
			continue
		}
		t.Errorf("%s is the types of no variant: delete it, or run go test ./... -update", f)
	}
}

// TestDeterministic: generating twice gives the same bytes.
func TestDeterministic(t *testing.T) {
	lib := fixture.Library(t)
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		for _, lang := range Langs() {
			a, _ := Generate(lang, name, v.SchemaJSON())
			for range 5 {
				if b, _ := Generate(lang, name, v.SchemaJSON()); !bytes.Equal(a, b) {
					t.Fatalf("%s %s: two runs differ", name, lang)
				}
			}
		}
	}
}
