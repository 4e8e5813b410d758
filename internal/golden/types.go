package golden

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/typegen"
)

// TypesDir is the folder, under the golden files' folder, that holds the
// generated types of every variant: <variant>.ts and <variant>.py.
const TypesDir = "types"

// All compares everything a library derives that a test holds: the
// prompts of the examples (Examples, under dir/<variant>/) and the types of
// each variant's input (Types, under dir/types/). `render test` and the Go
// tests run it, so that `render test --update` leaves nothing for
// `go test ./...` to find.
func All(ctx context.Context, lib *engine.Library, dir string, variants []string, update bool) ([]Outcome, error) {
	out, err := Examples(ctx, lib, dir, variants, update)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(out, func(o Outcome) bool { return o.Status == Refused }) {
		update = false // an update refused writes nothing (see Examples)
	}
	out = append(out, Types(lib, filepath.Join(dir, TypesDir), variants, update)...)
	slices.SortStableFunc(out, func(a, b Outcome) int { return strings.Compare(a.File, b.File) })
	return out, nil
}

// Types generates the input types of the named variants (all when none is)
// in every language typegen writes, and compares each with its golden file
// dir/<variant><ext>. With update it writes those that differ or are
// missing and, when no variant is named, deletes the files of no variant.
// A variant that does not load is left to Examples, which reports it.
func Types(lib *engine.Library, dir string, variants []string, update bool) []Outcome {
	all := len(variants) == 0
	if all {
		variants = lib.Names()
	}
	var out []Outcome
	for _, name := range variants {
		v, err := lib.Variant(name)
		if err != nil {
			continue
		}
		for _, lang := range typegen.Langs() {
			file := filepath.Join(dir, name+lang.FileExt())
			o := Outcome{Variant: name, Lang: string(lang), File: file}
			src, gerr := typegen.Generate(lang, name, v.SchemaJSON())
			if gerr != nil {
				o.Status, o.Err = Failed, gerr
			} else {
				o.Status, o.Diff, o.Err = Compare(file, src, update)
			}
			out = append(out, o)
		}
	}
	if all {
		out = append(out, orphanTypes(lib, dir, update)...)
	}
	slices.SortStableFunc(out, func(a, b Outcome) int { return strings.Compare(a.File, b.File) })
	return out
}

// orphanTypes are the files of types in dir (TypesDir) of no variant of
// lib, each Stale, or with update deleted (Removed). A variant that does
// not load is one of lib's: its types stay.
func orphanTypes(lib *engine.Library, dir string, update bool) []Outcome {
	var out []Outcome
	names := lib.Names()
	for _, lang := range typegen.Langs() {
		files, _ := filepath.Glob(filepath.Join(dir, "*"+lang.FileExt()))
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), lang.FileExt())
			if slices.Contains(names, name) {
				continue
			}
			out = append(out, stale(Outcome{Variant: name, Lang: string(lang), File: f}, update))
		}
	}
	return out
}
