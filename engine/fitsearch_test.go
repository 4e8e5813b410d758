package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFewestCutsIsTheBinarySearchsCut: on token counts that fall as cuts
// are made, flat for a while or all at once as templates make them, and
// with estimates good, bad and none, the search finds the cut a binary
// search finds (the least number of cuts that fits), probes no count it
// cannot trust, and renders at most three more times than a binary search.
func TestFewestCutsIsTheBinarySearchsCut(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 3000 {
		total := rng.IntN(300)
		counts := make([]int, total+1)
		counts[total] = 50 + rng.IntN(50)
		flat := rng.IntN(total + 1) // the prompt shows none of the first cuts
		for k := total - 1; k >= 0; k-- {
			counts[k] = counts[k+1]
			if k >= flat {
				counts[k] += rng.IntN(30)
			}
		}
		saved := make([]int, total+1)
		for k := 1; k <= total; k++ {
			var s int
			switch trial % 3 {
			case 0: // exact but for a constant, as what templates say about a cut
				s = counts[0] - counts[k] + rng.IntN(2)
			case 1: // every cut saves the same
				s = k * (counts[0] - counts[total]) / max(total, 1)
			default: // nothing known
			}
			saved[k] = max(saved[k-1], s)
		}
		limit := counts[total] - 5 + rng.IntN(counts[0]-counts[total]+10)
		if counts[0] <= limit {
			continue // fits uncut: the fit never searches
		}
		want := total + 1
		for k := range counts {
			if counts[k] <= limit {
				want = k
				break
			}
		}
		probes := 0
		got, err := fewestCuts(total, counts[0], limit, saved, func(k int) (int, error) {
			if k < 0 || k > total {
				t.Fatalf("probed %d cuts of %d", k, total)
			}
			probes++
			return counts[k], nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("trial %d: %d cuts, want %d (limit %d, counts %v)", trial, got, want, limit, counts)
		}
		if bound := 3 + int(math.Ceil(math.Log2(float64(total+2)))); probes > bound {
			t.Errorf("trial %d: %d probes for %d cuts, more than %d", trial, probes, total, bound)
		}
	}
}
