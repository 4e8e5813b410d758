package promptsmith_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/testing/goldentest"
)

// TestFunctionTable: the table of functions in templates/README.md is the
// function catalog's own (go test ./... -update rewrites it).
func TestFunctionTable(t *testing.T) {
	const path = "templates/README.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const start, end = "<!-- functions:start -->\n", "<!-- functions:end -->"
	i, j := strings.Index(string(doc), start), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q markers", path, start, end)
	}
	want := string(doc[:i+len(start)]) + funcs.Table() + string(doc[j:])
	goldentest.Check(t, path, []byte(want))
	if !strings.Contains(string(doc), funcs.Table()) {
		t.Errorf("%s does not show the function catalog; run go test ./... -update", path)
	}
}

// TestManifestSchema: every manifest of the library validates against
// templates/manifest.schema.json, the schema editors read, and the schema
// names exactly the fields the manifest's types have, so it cannot drift.
func TestManifestSchema(t *testing.T) {
	data, err := os.ReadFile("templates/manifest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("manifest.schema.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("manifest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	manifests, _ := filepath.Glob("templates/*/prompt.yaml")
	for _, f := range manifests {
		b, _ := os.ReadFile(f)
		if !bytes.HasPrefix(b, []byte("# yaml-language-server: $schema=../manifest.schema.json\n")) {
			t.Errorf("%s does not start with the yaml-language-server line", f)
		}
		doc, err := input.Decode(input.Input{Name: f, Data: b}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		json.Unmarshal(input.AppendJSON(nil, doc.Root, nil, false), &v)
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	var raw map[string]any
	json.Unmarshal(data, &raw)
	defs := raw["$defs"].(map[string]any)
	props := func(m any) []string {
		var names []string
		for k := range m.(map[string]any)["properties"].(map[string]any) {
			names = append(names, k)
		}
		slices.Sort(names)
		return names
	}
	rules := defs["rules"].(map[string]any)["properties"].(map[string]any)
	for goType, node := range map[string]any{"Manifest": raw, "IDSpec": defs["id"], "Verbatim": defs["verbatim"],
		"Rules": defs["rules"], "Checks": defs["checks"], "TextRule": defs["text_rule"], "Probe": defs["probe"],
		"Unit": defs["unit"], "BudgetExample": defs["budget_example"], "Cache": defs["cache"],
		"Reference":      rules["references"].(map[string]any)["items"],
		"TemplateChoice": rules["template_choice"].(map[string]any)["items"],
		"SectionRef":     rules["section_refs"].(map[string]any)["items"]} {
		want := slices.Sorted(slices.Values(manifest.FieldNames(goType)))
		if got := props(node); !slices.Equal(got, want) {
			t.Errorf("manifest.schema.json describes %s as %v; its fields are %v", goType, got, want)
		}
	}
}

// TestLibraryIsTheEmbeddedFiles: Library loads what FS holds, once, every
// variant of templates/ with a schema, none broken.
func TestLibraryIsTheEmbeddedFiles(t *testing.T) {
	lib, err := promptsmith.Library()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := promptsmith.Library(); again != lib {
		t.Error("Library loaded the library again")
	}
	dirs, err := fs.ReadDir(promptsmith.FS(), "templates")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, d := range dirs {
		if d.IsDir() {
			want = append(want, d.Name())
			if _, err := fs.Stat(promptsmith.FS(), "templates/"+d.Name()+"/prompt.yaml"); err != nil {
				t.Errorf("templates/%s has no prompt.yaml", d.Name())
			}
		}
	}
	if got := lib.Names(); !slices.Equal(got, want) || len(got) < 5 {
		t.Errorf("variants %v, folders %v", got, want)
	}
	if err := lib.Err(); err != nil {
		t.Errorf("the embedded library has a broken variant: %v", err)
	}
	if _, err := fs.Stat(promptsmith.FS(), "schemas/delegation.schema.json"); err != nil {
		t.Error(err)
	}
}
