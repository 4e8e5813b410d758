package bench

import (
	"slices"
	"sync"
	"testing"
)

// Ratios are what to read on a shared machine: absolute times drift from
// run to run, the ratio of two benchmarks run minutes apart much less. A
// benchmark that is a floor records its time per op under a name; one
// measured against it reports its time per op divided by the median of the
// floor's runs so far as a metric of its own ("x-bare"), so that benchstat
// or BENCH.md's summary shows the ratio next to the times.

var floors struct {
	sync.Mutex
	ns map[string][]float64
}

// nsPerOp is the time per op of a finished benchmark loop.
func nsPerOp(b *testing.B) float64 {
	if b.N == 0 {
		return 0
	}
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
}

// recordFloor keeps this run's time per op as a floor named name.
func recordFloor(b *testing.B, name string) {
	ns := nsPerOp(b)
	floors.Lock()
	defer floors.Unlock()
	if floors.ns == nil {
		floors.ns = map[string][]float64{}
	}
	floors.ns[name] = append(floors.ns[name], ns)
}

// reportRatio reports this run's time per op over the median of the floor
// named name as the metric unit; nothing when the floor did not run (a
// -bench pattern that leaves it out).
func reportRatio(b *testing.B, name, unit string) {
	floors.Lock()
	runs := slices.Clone(floors.ns[name])
	floors.Unlock()
	if len(runs) == 0 {
		return
	}
	if m := median(runs); m > 0 {
		b.ReportMetric(nsPerOp(b)/m, unit)
	}
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
