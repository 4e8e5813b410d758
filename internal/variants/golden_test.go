package variants_test

import (
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/goldentest"
)

func libraryOnce() (*engine.Library, error) { return promptsmith.Library() }

// TestGolden renders every example of every variant, and those fitted to
// a budget, and compares each with its golden file under testdata/golden:
// what render test does (render test --update, or go test ./... -update,
// rewrites them).
func TestGolden(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		if len(v.Examples()) == 0 {
			t.Errorf("variant %s has no examples: add templates/%s/examples/*.yaml", name, name)
		}
	}
	outcomes, err := golden.Examples(context.Background(), lib, filepath.Join("..", "..", "testdata", "golden"), nil, goldentest.Updating())
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
	t.Parallel()
	lib := fixture.Library(t)
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
	t.Parallel()
	lib := fixture.Library(t)
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
