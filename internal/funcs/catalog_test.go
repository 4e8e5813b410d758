package funcs

import (
	"strings"
	"testing"
	"text/template"

	"github.com/promptsmith/promptsmith/internal/input"
)

// TestCatalogExamples runs every example of every function of the catalog:
// the examples templates/README.md shows are true.
func TestCatalogExamples(t *testing.T) {
	for _, fn := range Catalog(nil) {
		if len(fn.Examples) == 0 {
			t.Errorf("%s has no example", fn.Name)
		}
		if fn.Doc == "" || !strings.HasPrefix(fn.Signature, fn.Name) {
			t.Errorf("%s: doc %q, signature %q", fn.Name, fn.Doc, fn.Signature)
		}
		for i, ex := range fn.Examples {
			data := ex.Data
			if data == "" {
				data = "{}"
			}
			doc, err := input.Decode(input.Input{Name: fn.Name, Data: []byte(data)}, nil)
			if err != nil {
				t.Fatalf("%s example %d: %v", fn.Name, i, err)
			}
			var set *template.Template
			env := &Env{Keys: doc.Order(), Templates: func() *template.Template { return set }}
			set, err = template.New(fn.Name).Option("missingkey=error").Funcs(Map(env)).Parse(ex.Template)
			if err != nil {
				t.Fatalf("%s example %d: %v", fn.Name, i, err)
			}
			var b strings.Builder
			if err := set.Execute(&b, doc.Root); err != nil {
				t.Errorf("%s example %d: %v", fn.Name, i, err)
			} else if b.String() != ex.Output {
				t.Errorf("%s example %d: %s gave %q, want %q", fn.Name, i, ex.Template, b.String(), ex.Output)
			}
			doc.Release()
		}
	}
}

// TestMapHoldsTheCatalog: every function of the catalog is what templates
// call by its name, and no excluded sprig function is left.
func TestMapHoldsTheCatalog(t *testing.T) {
	m := Map(&Env{})
	seen := map[string]bool{}
	for _, fn := range Catalog(nil) {
		if seen[fn.Name] {
			t.Errorf("%s is in the catalog twice", fn.Name)
		}
		seen[fn.Name] = true
		if _, ok := m[fn.Name]; !ok {
			t.Errorf("%s is not in the map", fn.Name)
		}
	}
	for _, name := range Excluded() {
		if _, ok := m[name]; ok && !seen[name] {
			t.Errorf("excluded %s is in the map", name)
		}
	}
}

// TestKeepsElementsNamesFunctions: every function KeepsElements names is
// one a template may call, so that a renamed function is not silently
// left out of the field checks.
func TestKeepsElementsNamesFunctions(t *testing.T) {
	m := Map(&Env{})
	n := 0
	for name := range m {
		if KeepsElements(name) {
			n++
		}
	}
	if n != 12 {
		t.Errorf("KeepsElements names %d functions of the map, want 12", n)
	}
	if KeepsElements("first") || KeepsElements("keys") {
		t.Error("KeepsElements names a function that returns one element or something else")
	}
}
