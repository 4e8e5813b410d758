package typegen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/goldentest"
	"github.com/promptsmith/promptsmith/internal/typegen"
)

// The tests of this file compare generated types with golden files. They
// are outside package typegen because package golden, which `render test`
// shares with them, imports typegen.

// TestGoldenTypes compares the types of every variant with
// testdata/golden/types/<variant>.ts and .py, as render test does: a schema
// change shows up as a diff of the types callers get. A file there of no
// variant is an error. render test --update (or go test ./... -update)
// rewrites them, and render new writes a new variant's.
func TestGoldenTypes(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	outcomes := golden.Types(lib, filepath.Join("..", "..", "testdata", "golden", golden.TypesDir), nil, goldentest.Updating())
	for _, o := range outcomes {
		if !o.OK() {
			t.Error(o.String())
		}
	}
	if want := len(lib.Names()) * len(typegen.Langs()); len(outcomes) < want {
		t.Errorf("%d type files compared, want %d", len(outcomes), want)
	}
}

// TestDeterministic: generating twice gives the same bytes.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		for _, lang := range typegen.Langs() {
			a, _ := typegen.Generate(lang, name, v.SchemaJSON())
			for range 5 {
				if b, _ := typegen.Generate(lang, name, v.SchemaJSON()); !bytes.Equal(a, b) {
					t.Fatalf("%s %s: two runs differ", name, lang)
				}
			}
		}
	}
}

// TestEdgeSchema: the edge schema's example is valid, so its types must
// accept it (TestTypeScriptTypes, TestPythonTypes); its types are golden
// files beside it (go test ./typegen -update rewrites them).
func TestEdgeSchema(t *testing.T) {
	t.Parallel()
	schema, err := os.ReadFile(filepath.Join("testdata", "edge.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("edge.schema.json", strings.NewReader(string(schema))); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("edge.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile(filepath.Join("testdata", "edge.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(ex, &v); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("testdata/edge.example.json does not match its schema: %v", err)
	}
	for _, lang := range typegen.Langs() {
		src, err := typegen.Generate(lang, "edge", schema)
		if err != nil {
			t.Fatal(err)
		}
		goldentest.Check(t, filepath.Join("testdata", "edge"+lang.FileExt()), src)
	}
}
