// Package librarylint gathers what render lint reports about a library:
// each variant's static findings (engine's Variant.Lint), its examples
// rendered, checked and compared with their golden files, and, for
// --cover, the branches of its templates no example takes. render lint and
// the preview page of render serve both use it, so that they agree.
package librarylint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/lint"
)

// Findings lints the named variants of lib (all when none is). A variant
// that does not load, or is served from its last good version
// (engine.Library.Stale), is one finding per problem of its error: every
// broken variant is reported, not the first. With a goldenDir
// (testdata/golden of a working copy) every example is rendered: one that
// does not render or fails its checks is an error (KindLint), and a golden
// file that differs, is missing or that no example produces is a warning of
// KindGolden, which render test, not lint, fails on; so is a file of
// generated types (types/<variant>.ts, .py) that differs, and, when no
// variant is named, a golden file of a variant the library no longer has
// (golden.Orphans). Without one only the static checks run. An unknown
// variant name is the error returned.
//
// A finding is reported once per position and message: a problem that
// many examples hit (a template that fails on each) is one finding that
// counts and names them, and none where lint found an error without an
// input (a misspelt field is one finding, not one more per example); a
// warning found without an input gives way to the error of examples that
// fail at its place (warnedOnce).
func Findings(ctx context.Context, lib *engine.Library, goldenDir string, names []string) ([]lint.Finding, error) {
	all := len(names) == 0
	if all {
		names = lib.Names()
	}
	var out []lint.Finding
	var loaded []string
	// static are the places of the errors found without an input: an
	// example that fails there fails of the same mistake, already said.
	static := map[string]bool{}
	for _, name := range names {
		v, err := lib.Variant(name)
		if err == nil {
			err = lib.Stale(name)
		}
		if err != nil {
			var e *engine.Error
			if errors.As(err, &e) && e.Kind == engine.KindUsage {
				return nil, err
			}
			out = append(out, ErrorFindings(err)...)
			continue
		}
		loaded = append(loaded, name)
		for _, f := range v.Lint() {
			if f.Severity == lint.Error {
				static[f.Position] = true
			}
			out = append(out, f)
		}
	}
	if goldenDir == "" {
		return Merge(out), nil
	}
	outcomes, err := goldenOutcomes(ctx, lib, goldenDir, loaded, all)
	if err != nil {
		return nil, err
	}
	for _, o := range outcomes {
		if o.OK() || (o.Status == golden.Failed && o.Example == "" && o.Lang == "") { // a broken variant is reported above
			continue
		}
		if o.Status == golden.Failed && o.Example != "" {
			pos := o.File
			if v, err := lib.Variant(o.Variant); err == nil {
				if in, err := v.Example(o.Example); err == nil {
					pos = in.Name
				}
			}
			for _, f := range ErrorFindings(o.Err) {
				if static[f.Position] {
					continue
				}
				if f.Position == "" {
					f.Position = pos
				}
				f.Examples = []string{o.Example}
				if e := engine.AsError(o.Err); e.Kind == engine.KindCheck {
					f.Same = "check"
				}
				out = append(out, f)
			}
			continue
		}
		if o.Seed != "" && o.Status == golden.Differs {
			out = append(out, pinnedFinding(lib, o))
			continue
		}
		msg := strings.SplitN(o.String(), "\n", 2)[0]
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, "FAIL "), o.File+": ")
		if o.Status == golden.Differs {
			msg += "; render test shows the diff"
		}
		out = append(out, lint.Finding{Position: o.File, Severity: lint.Warning, Kind: lint.KindGolden, Message: msg})
	}
	return Merge(warnedOnce(out)), nil
}

// goldenOutcomes compares every golden file render test compares, of
// the variants that loaded: the examples' prompts and the variants' types,
// so that lint and test count the same files; for the whole library (all),
// those of a variant it no longer has too (golden.Orphans).
func goldenOutcomes(ctx context.Context, lib *engine.Library, goldenDir string, loaded []string, all bool) ([]golden.Outcome, error) {
	var outcomes []golden.Outcome
	if len(loaded) > 0 {
		var err error
		if outcomes, err = golden.All(ctx, lib, goldenDir, loaded, false); err != nil {
			return nil, err
		}
	}
	if all {
		outcomes = append(outcomes, golden.Orphans(lib, goldenDir)...)
	}
	return outcomes, nil
}

// warnedOnce leaves out a warning lint found without an input where an
// example fails: an optional field read without a guard is warned of,
// and an example that leaves the field out fails there; the error, which
// counts the examples, says it all.
func warnedOnce(findings []lint.Finding) []lint.Finding {
	failed := map[string]bool{}
	for _, f := range findings {
		if f.Severity == lint.Error && len(f.Examples) > 0 {
			failed[f.Position] = true
		}
	}
	return slices.DeleteFunc(findings, func(f lint.Finding) bool {
		return f.Severity == lint.Warning && len(f.Examples) == 0 && (f.Kind == "" || f.Kind == lint.KindLint) && failed[f.Position]
	})
}

// Merge reports each finding once: those of the same kind, severity,
// position and message become one, which counts the examples that hit it
// and names them in its message ("example basic: ..." for one, "... (in 3
// examples: a, b, c)" for more). A finding keeps the place of its first.
// A finding without a kind is KindLint; one that counts examples already
// (Merge's) stays as it is. Findings with the same Same are one finding at
// one position whatever their messages: the first's message is kept, with
// the example it is about and the others that hit the same place.
func Merge(findings []lint.Finding) []lint.Finding {
	type key struct {
		kind     lint.Kind
		severity lint.Severity
		position string
		message  string // "" for findings that are the same by Same
		same     string
	}
	var out []lint.Finding
	at := map[key]int{}
	var fresh []bool   // whether out[i] is new here, its message still to name its examples
	var first []string // for findings the same by Same, the example their message is about
	for _, f := range findings {
		if f.Kind == "" {
			f.Kind = lint.KindLint
		}
		if f.Count > 0 { // merged already
			out = append(out, f)
			fresh = append(fresh, false)
			first = append(first, "")
			continue
		}
		k := key{f.Kind, f.Severity, f.Position, f.Message, ""}
		if f.Same != "" {
			k.message, k.same = "", f.Same
		}
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			f.Examples = slices.Clone(f.Examples)
			out = append(out, f)
			fresh = append(fresh, true)
			first = append(first, "")
			if f.Same != "" && len(f.Examples) > 0 {
				first[len(first)-1] = f.Examples[0]
			}
			continue
		}
		for _, ex := range f.Examples {
			if !slices.Contains(out[i].Examples, ex) {
				out[i].Examples = append(out[i].Examples, ex)
			}
		}
	}
	for i := range out {
		f := &out[i]
		if !fresh[i] || len(f.Examples) == 0 {
			continue
		}
		slices.Sort(f.Examples)
		f.Count = len(f.Examples)
		if first[i] != "" && f.Count > 1 {
			// The message tells of one example's prompt; the others fail the
			// same check, each at its own place.
			others := slices.DeleteFunc(slices.Clone(f.Examples), func(ex string) bool { return ex == first[i] })
			f.Message = "example " + first[i] + ": " + f.Message + fmt.Sprintf(" (and %s)", inExamples(others))
			continue
		}
		f.Message = withExamples(f.Message, f.Examples)
	}
	return out
}

// inExamples names examples in a message: "in 3 more examples: a, b, c".
func inExamples(examples []string) string {
	const shown = 5
	names := strings.Join(examples[:min(len(examples), shown)], ", ")
	if len(examples) > shown {
		names += fmt.Sprintf(" and %d more", len(examples)-shown)
	}
	if len(examples) == 1 {
		return "in example " + names
	}
	return fmt.Sprintf("in %d more examples: %s", len(examples), names)
}

// withExamples names the examples that hit a problem in its message.
func withExamples(msg string, examples []string) string {
	if len(examples) == 1 {
		return "example " + examples[0] + ": " + msg
	}
	const shown = 5
	names := strings.Join(examples[:min(len(examples), shown)], ", ")
	if len(examples) > shown {
		names += fmt.Sprintf(" and %d more", len(examples)-shown)
	}
	return fmt.Sprintf("%s (in %d examples: %s)", msg, len(examples), names)
}

// GoldenDir is the folder of a working copy's golden files:
// root/testdata/golden.
func GoldenDir(root string) string { return filepath.Join(root, "testdata", "golden") }

// ErrorFindings turns an engine error, with the problems in its Also, into
// findings.
func ErrorFindings(err error) []lint.Finding {
	e := engine.AsError(err)
	var out []lint.Finding
	for _, x := range append([]*engine.Error{e}, e.Also...) {
		msg := x.Reason
		if x.Field != "" {
			msg = x.Field + ": " + msg
		}
		if len(x.Hints) > 0 {
			msg += " (" + strings.Join(x.Hints, "; ") + ")"
		}
		out = append(out, lint.Finding{Position: x.Position, Severity: lint.Error, Kind: lint.KindLint, Message: msg})
	}
	return out
}

// Pins says, per named variant (all when none is) with a seed, how many
// examples are pinned to it: lines such as "squad: 24 example(s) pinned to
// seed 002_x.txt (buildX in y.ts)". render lint and render test report them.
func Pins(lib *engine.Library, names []string) []string {
	if len(names) == 0 {
		names = lib.Names()
	}
	var out []string
	for _, name := range names {
		if v, err := lib.Variant(name); err == nil && v.Manifest().Seed != nil {
			seed := v.Manifest().Seed
			out = append(out, fmt.Sprintf("%s: %d example(s) pinned to %s", name, len(seed.Pinned), seed))
		}
	}
	return out
}

// pinnedFinding is the error of o, the outcome of an example pinned to a
// seed whose prompt no longer is the seed builder's output, which render
// test --update cannot accept. It stands at the example's file.
func pinnedFinding(lib *engine.Library, o golden.Outcome) lint.Finding {
	pos := o.File
	if v, err := lib.Variant(o.Variant); err == nil {
		if in, err := v.Example(o.Example); err == nil {
			pos = in.Name
		}
	}
	return lint.Finding{Position: pos, Severity: lint.Error, Kind: lint.KindLint,
		Message: fmt.Sprintf("example %s is pinned to %s by seed.pinned in %s, and its prompt is no longer that builder's output, %s (render test shows the diff); undo the change, or unpin the example and make it one of its own",
			o.Example, o.Seed, o.Manifest, o.File)}
}
