package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// BenchmarkBudget fits the space prompt with 1,000 memories to 2,000 o200k
// tokens (fit-2000), next to the plain render of the same input with its
// tokens counted (plain, the floor: x-plain), and both in the same ops
// (paired). renders is how many times the fit ran the templates.
func BenchmarkBudget(b *testing.B) {
	lib := fixture.Library(b)
	tc := o200k(b)
	in := fixture.SpaceWithManyMemories("budget")
	plain := func() error {
		res, err := lib.Render(context.Background(), "space", in, engine.CountTokens(tc))
		if err == nil && res.Tokens == 0 {
			err = fmt.Errorf("no tokens counted")
		}
		return err
	}
	renders := 0
	fit := func() error {
		res, err := lib.Render(context.Background(), "space", in, engine.FitTokens(2000, tc))
		if err != nil {
			return err
		}
		if res.Budget.Tokens > 2000 {
			return fmt.Errorf("fitted to %d tokens", res.Budget.Tokens)
		}
		renders = res.Budget.Renders
		return nil
	}
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		runOps(b, plain)
		recordFloor(b, "budget-plain")
	})
	b.Run("fit-2000", func(b *testing.B) {
		b.ReportAllocs()
		runOps(b, fit)
		reportRatio(b, "budget-plain", "x-plain")
		b.ReportMetric(float64(renders), "renders")
	})
	b.Run("paired", func(b *testing.B) {
		paired(b, fit, base{"x-plain", plain})
	})
}
