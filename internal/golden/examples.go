// Package golden compares what a library derives with the golden files
// committed under testdata/golden/: the rendered prompts of the examples
// (<variant>/<example>.md) and the generated types of every variant's input
// (types/<variant>.ts and .py). `render test` and the Go tests share it, so
// that they agree. Go tests compare other output through goldentest.
package golden

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/tokens"
)

// Status is how one golden file compares.
type Status string

const (
	Same    Status = "ok"      // the rendered prompt is the golden file
	Differs Status = "differs" // it is not: Diff shows how
	Missing Status = "missing" // there is no golden file yet
	Updated Status = "updated" // the golden file was (re)written
	Stale   Status = "stale"   // a golden file no example produces
	Failed  Status = "failed"  // the example did not render: Err says why
	Removed Status = "removed" // a stale golden file was deleted
	// Refused: the example is pinned to a seed (prompt.yaml's seed.pinned)
	// and its prompt differs from its golden file, the seed builder's
	// output; --update does not rewrite it.
	Refused Status = "refused"
)

// Outcome is one golden file's comparison.
type Outcome struct {
	Variant string
	Example string // the example, for a prompt
	Lang    string // the language (typegen.Lang), for generated types
	File    string // path of the golden file
	Status  Status
	Diff    string // unified diff, golden file first, for Differs and Refused
	Err     error  // for Failed
	// Seed names the seed the example is pinned to ("seed 002_x.txt
	// (buildX in y.ts)"), for the prompt of a pinned example; its golden
	// file is the seed builder's output.
	Seed string
	// Manifest is the manifest that pins it, for messages.
	Manifest string
	// Orphan marks a file of a folder <variant>/ of no variant, for a
	// variant removed from the library (Stale, or Removed with update).
	Orphan bool
	// Dir is the folder of no variant that an update removed with this
	// file, the last in it.
	Dir string
}

// Examples renders every example of the named variants (all when none is
// named), and those a manifest's budget_examples fit to a number of
// tokens, and compares each with its golden file under dir
// (dir/<variant>/<example>.md). With update it writes the files that
// differ or are missing, and deletes those no example produces. When no
// variant is named, a folder dir/<name>/ of no variant (one removed from the
// library) has its golden files reported Stale too, and an update deletes
// them and the folder once it is empty (see Orphans). `go test` and `render
// test` both run it, so they agree.
//
// An update writes nothing when the prompt of an example pinned to a seed
// differs from its golden file: that outcome is Refused, and the others
// are as without update, so that the author undoes the change (or unpins
// the example) before any golden file moves.
func Examples(ctx context.Context, lib *engine.Library, dir string, variants []string, update bool) ([]Outcome, error) {
	if !update {
		return examples(ctx, lib, dir, variants, false)
	}
	out, err := examples(ctx, lib, dir, variants, false)
	if err != nil || !refuse(out) {
		return examples(ctx, lib, dir, variants, true)
	}
	return out, nil
}

// refuse reports whether an update must write nothing, a pinned example's
// prompt differing from its golden file, and marks those outcomes Refused.
func refuse(out []Outcome) bool {
	refused := false
	for i := range out {
		if out[i].Seed != "" && out[i].Status == Differs {
			out[i].Status, refused = Refused, true
		}
	}
	return refused
}

func examples(ctx context.Context, lib *engine.Library, dir string, variants []string, update bool) ([]Outcome, error) {
	var out []Outcome
	if len(variants) == 0 {
		variants = lib.Names()
		out = orphans(lib, dir, update)
	}
	for _, name := range variants {
		v, err := lib.Variant(name)
		if err != nil {
			out = append(out, Outcome{Variant: name, Status: Failed, Err: err})
			continue
		}
		want := map[string]bool{}
		seed := v.Manifest().Seed
		check := func(example, file string, pinned bool, render func() (*engine.Result, error)) {
			want[file] = true
			o := Outcome{Variant: name, Example: example, File: filepath.Join(dir, name, file)}
			if pinned {
				o.Seed, o.Manifest = seed.String(), "templates/"+name+"/prompt.yaml"
			}
			res, err := render()
			switch {
			case err != nil:
				o.Status, o.Err = Failed, err
			default:
				o.Status, o.Diff, o.Err = Compare(o.File, []byte(res.Text), update)
			}
			out = append(out, o)
		}
		for _, ex := range v.Examples() {
			in, _ := v.Example(ex)
			render := func() (*engine.Result, error) { return lib.Render(ctx, name, in) }
			if !seed.Pins(ex) || len(seed.Sections) == 0 {
				check(ex, ex+".md", seed.Pins(ex), render)
				continue
			}
			// The builder writes the seed's sections alone: the whole prompt
			// is golden-tested like any other, its seed part held to the seed.
			var res *engine.Result
			var err error
			check(ex, ex+".md", false, func() (*engine.Result, error) { res, err = render(); return res, err })
			check(ex, manifest.SeedGolden(ex), true, func() (*engine.Result, error) {
				if err != nil {
					return nil, err
				}
				part, err := SeedPart(res, seed.Sections)
				return &engine.Result{Text: part}, err
			})
		}
		for _, be := range v.Manifest().BudgetExamples {
			in, _ := v.Example(be.Example)
			check(be.Example, be.Golden(), false, func() (*engine.Result, error) {
				tc, err := tokens.New(be.Encoding())
				if err != nil {
					return nil, err
				}
				return lib.Render(ctx, name, in, engine.FitTokens(be.MaxTokens, tc))
			})
		}
		files, _ := filepath.Glob(filepath.Join(dir, name, "*.md"))
		for _, f := range files {
			if want[filepath.Base(f)] {
				continue
			}
			out = append(out, stale(Outcome{Variant: name, File: f}, update))
		}
	}
	slices.SortStableFunc(out, func(a, b Outcome) int { return strings.Compare(a.File, b.File) })
	return out, nil
}

// SeedPart is what the seed's sections wrote in res: the text before the
// first section of the prompt that is not one of them. A seed section
// after that one is an error: the builder writes its sections together.
func SeedPart(res *engine.Result, sections []string) (string, error) {
	for i, s := range res.Sections {
		if slices.Contains(sections, s.Name) {
			continue
		}
		for _, later := range res.Sections[i+1:] {
			if slices.Contains(sections, later.Name) {
				return "", fmt.Errorf("section %s, which seed.sections does not name, comes before %s, which it does: the seed's builder writes its sections together; pin an example whose input leaves %s empty", s.Name, later.Name, s.Name)
			}
		}
		return res.Text[:s.Start], nil
	}
	return res.Text, nil
}

// Orphans are the golden files under dir of variants lib does not have,
// those of a variant removed from the library, each Stale: the prompts of
// a folder dir/<name>/ (Orphan set; TypesDir is the types' folder, not a
// variant's) and the types TypesDir/<name>.ts and .py. A variant that is
// there but does not load is one of lib's (engine.Library.Names): its
// files are not orphans, and stay. render lint reports them; Examples and
// Types, for all the variants, report them too and, with update, delete
// them.
func Orphans(lib *engine.Library, dir string) []Outcome {
	out := append(orphans(lib, dir, false), orphanTypes(lib, filepath.Join(dir, TypesDir), false)...)
	slices.SortStableFunc(out, func(a, b Outcome) int { return strings.Compare(a.File, b.File) })
	return out
}

// orphans is Orphans, or with update the same files deleted (Removed),
// and each folder left empty then removed (the Dir of its last file).
// Only the golden files (*.md) are touched: a folder that holds anything
// else stays, with that.
func orphans(lib *engine.Library, dir string, update bool) []Outcome {
	entries, _ := os.ReadDir(dir) // no folder, no golden files: nothing is stale
	var out []Outcome
	names := lib.Names()
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == TypesDir || slices.Contains(names, name) {
			continue
		}
		folder := filepath.Join(dir, name)
		files, _ := filepath.Glob(filepath.Join(folder, "*.md"))
		for i, f := range files {
			o := stale(Outcome{Variant: name, File: f, Orphan: true}, update)
			if update && i == len(files)-1 && o.Status == Removed && os.Remove(folder) == nil {
				o.Dir = folder
			}
			out = append(out, o)
		}
	}
	return out
}

// stale is the outcome of o.File, a golden file nothing produces any
// longer: Stale, or with update Removed once it is deleted.
func stale(o Outcome, update bool) Outcome {
	o.Status = Stale
	if update {
		if err := os.Remove(o.File); err != nil {
			o.Status, o.Err = Failed, err
		} else {
			o.Status = Removed
		}
	}
	return o
}

// Compare checks got against the golden file at path, or writes it with
// update: Same, Differs with a unified diff (the file first), Missing, or
// Updated.
func Compare(path string, got []byte, update bool) (Status, string, error) {
	want, err := os.ReadFile(path)
	switch {
	case err == nil && string(want) == string(got):
		return Same, "", nil
	case update:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Failed, "", err
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			return Failed, "", err
		}
		return Updated, "", nil
	case os.IsNotExist(err):
		return Missing, "", nil
	case err != nil:
		return Failed, "", err
	}
	return Differs, udiff.Unified(path, "rendered", string(want), string(got)), nil
}

// pinned is what a failure of a pinned example's prompt means and what to
// do, after "FAIL <file>: ".
func (o Outcome) pinned() string {
	manifest := o.Manifest
	if manifest == "" {
		manifest = "prompt.yaml"
	}
	what := "the prompt differs from the golden file, the output of " + o.Seed + ", to which " + manifest + " pins example " + o.Example + " (seed.pinned)"
	todo := "undo the change to the templates or the example; or, if this example must now render otherwise (a field the seed does not know), remove " + o.Example + " from seed.pinned in " + manifest + " and make it an example of its own"
	if o.Status == Refused {
		return what + "; --update does not rewrite a pinned example's golden file: " + todo
	}
	return what + "; render test --update will not rewrite it: " + todo
}

// String is the outcome as one line, or a line and its diff.
func (o Outcome) String() string {
	subject := o.File
	if subject == "" {
		subject = o.Variant
	}
	switch o.Status {
	case Differs, Refused:
		if o.Seed != "" {
			return fmt.Sprintf("FAIL %s: %s\n%s", subject, o.pinned(), o.Diff)
		}
		what := "the rendered prompt differs"
		if o.Lang != "" {
			what = "the generated types differ"
		}
		return fmt.Sprintf("FAIL %s: %s\n%s", subject, what, o.Diff)
	case Missing:
		return fmt.Sprintf("FAIL %s: no golden file (render test --update writes it)", subject)
	case Stale:
		if o.Lang != "" {
			return fmt.Sprintf("FAIL %s: the types of no variant (render test --update deletes it)", subject)
		}
		if o.Orphan {
			return fmt.Sprintf("FAIL %s: no variant %s produces it (render test --update deletes it)", subject, o.Variant)
		}
		return fmt.Sprintf("FAIL %s: no example produces it (render test --update deletes it)", subject)
	case Failed:
		if o.File == "" {
			// The variant did not load: Examples compared none of its
			// files, and an update leaves them as they are.
			return fmt.Sprintf("FAIL %s: the variant does not load, so its golden files were not compared (render test --update leaves them as they are): %v", subject, o.Err)
		}
		return fmt.Sprintf("FAIL %s: %v", subject, o.Err)
	case Removed:
		if o.Dir != "" {
			return fmt.Sprintf("%s %s, and the folder %s of no variant, empty now", o.Status, subject, o.Dir)
		}
	}
	return fmt.Sprintf("%-4s %s", o.Status, subject)
}

// OK reports whether the outcome passes.
func (o Outcome) OK() bool {
	return o.Status == Same || o.Status == Updated || o.Status == Removed
}
