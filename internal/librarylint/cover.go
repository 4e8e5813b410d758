package librarylint

import (
	"context"
	"errors"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/tokens"
)

// Coverage renders every example of the named variants (all when none is),
// and every budget_examples entry fitted to its number of tokens, and
// returns the branches of each variant's templates they took: of a fitted
// entry, those of the prompt it fits, which its golden file shows, not
// those of the cuts the fit only tried (engine.Cover). A variant
// that does not load is left out (lint and test report it); an example
// that fails to render counts the branches it took before it failed. An
// unknown variant name is the error returned.
func Coverage(ctx context.Context, lib *engine.Library, names []string) ([]*engine.Coverage, error) {
	if len(names) == 0 {
		names = lib.Names()
	}
	var out []*engine.Coverage
	for _, name := range names {
		v, err := lib.Variant(name)
		if err != nil {
			var e *engine.Error
			if errors.As(err, &e) && e.Kind == engine.KindUsage {
				return nil, err
			}
			continue
		}
		c := v.NewCoverage()
		for _, ex := range v.Examples() {
			in, _ := v.Example(ex)
			v.Render(ctx, in, engine.Cover(c))
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, be := range v.Manifest().BudgetExamples {
			in, err := v.Example(be.Example)
			if err != nil {
				continue
			}
			tc, err := tokens.New(be.Encoding())
			if err != nil {
				continue
			}
			v.Render(ctx, in, engine.FitTokens(be.MaxTokens, tc), engine.Cover(c))
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// CoverageFindings are the branches no example takes, one warning each,
// saying where to explain one that no input can take.
func CoverageFindings(covs []*engine.Coverage) []lint.Finding {
	var out []lint.Finding
	for _, c := range covs {
		for _, b := range c.Uncovered() {
			readme := "examples/README.md"
			if i := strings.Index(b.Position, "/"+b.File+":"); i >= 0 {
				readme = b.Position[:i] + "/" + readme
			}
			out = append(out, lint.Finding{Position: b.Position, Severity: lint.Warning, Kind: lint.KindCoverage,
				Message: "no example takes " + b.String() + "; add an example input that does, or, if no input can, say why in " + readme + " (render test --cover)"})
		}
	}
	return out
}
