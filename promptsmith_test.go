package promptsmith_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/funcs"
	"github.com/promptsmith/promptsmith/engine/input"
	"github.com/promptsmith/promptsmith/engine/manifest"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/golden/goldentest"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

func libraryOnce() (*engine.Library, error) { return promptsmith.Library() }

func library(t testing.TB) *engine.Library {
	t.Helper()
	lib, err := promptsmith.Library()
	if err != nil {
		t.Fatalf("loading the embedded library: %v", err)
	}
	return lib
}

// TestGolden renders every example of every variant, and those fitted to
// a budget, and compares each with its golden file under testdata/golden:
// what render test does (go test . -update, or render test --update,
// rewrites them).
func TestGolden(t *testing.T) {
	lib := library(t)
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		if len(v.Examples()) == 0 {
			t.Errorf("variant %s has no examples: add templates/%s/examples/*.yaml", name, name)
		}
	}
	outcomes, err := golden.Examples(context.Background(), lib, filepath.Join("testdata", "golden"), nil, goldentest.Updating())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if !o.OK() {
			t.Error(o.String())
		}
	}
	if len(outcomes) < 40 {
		t.Errorf("only %d golden files compared", len(outcomes))
	}
}

// TestDeterministic renders every example twice, from two loads of the
// library, and wants the same bytes and ids.
func TestDeterministic(t *testing.T) {
	lib := library(t)
	other, err := engine.Load(promptsmith.FS())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		for _, ex := range v.Examples() {
			in, _ := v.Example(ex)
			a, err1 := lib.Render(context.Background(), name, in)
			b, err2 := other.Render(context.Background(), name, in)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s/%s: %v %v", name, ex, err1, err2)
			}
			if a.Text != b.Text || len(a.IDs) != len(b.IDs) {
				t.Errorf("%s/%s: two renders differ", name, ex)
			}
			for k := range a.IDs {
				if a.IDs[k] != b.IDs[k] {
					t.Errorf("%s/%s: id %s differs: %s vs %s", name, ex, k, a.IDs[k], b.IDs[k])
				}
			}
		}
	}
}

// TestConcurrentRenders shares one library between goroutines; run with -race.
func TestConcurrentRenders(t *testing.T) {
	lib := library(t)
	type job struct{ variant, example, want string }
	var jobs []job
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		for _, ex := range v.Examples() {
			in, _ := v.Example(ex)
			res, err := lib.Render(context.Background(), name, in)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, ex, err)
			}
			jobs = append(jobs, job{name, ex, res.Text})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(jobs))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range jobs {
				j := jobs[(i+g)%len(jobs)]
				v, _ := lib.Variant(j.variant)
				in, _ := v.Example(j.example)
				res, err := lib.Render(context.Background(), j.variant, in)
				if err != nil {
					errs <- err.Error()
				} else if res.Text != j.want {
					errs <- j.variant + "/" + j.example + ": concurrent render differs"
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	var all []string
	for e := range errs {
		all = append(all, e)
	}
	if len(all) > 0 {
		t.Fatal(strings.Join(all, "\n"))
	}
}

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
		"Unit": defs["unit"], "BudgetExample": defs["budget_example"],
		"Reference":      rules["references"].(map[string]any)["items"],
		"TemplateChoice": rules["template_choice"].(map[string]any)["items"],
		"SectionRef":     rules["section_refs"].(map[string]any)["items"]} {
		want := slices.Sorted(slices.Values(manifest.FieldNames(goType)))
		if got := props(node); !slices.Equal(got, want) {
			t.Errorf("manifest.schema.json describes %s as %v; its fields are %v", goType, got, want)
		}
	}
}
