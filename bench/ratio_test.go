package bench

import (
	"slices"
	"sync"
	"testing"
	"time"
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

// runOps runs work once per op of b's loop, and fails b at work's first
// error: the loop of a benchmark whose op is one call, shaped as paired's
// runs are, so that the same work serves it alone and paired.
func runOps(b *testing.B, work func() error) {
	for b.Loop() {
		if err := work(); err != nil {
			b.Fatal(err)
		}
	}
}

// A base is what a paired benchmark measures its subject against: the
// ratio's unit ("x-bare") and the work.
type base struct {
	unit string
	run  func() error
}

// paired runs the subject and each base once per op, in an order that
// rotates from op to op, timing each on its own, and reports the subject's
// total time over each base's as that base's unit. The two see the machine
// at the same moments, so their ratio holds where absolute times drift, and
// the medians of -count runs of a paired ratio vary far less than ratios of
// benchmarks run one after the other. Its ns/op is the sum of all of them.
//
// The runs of one op share a heap: garbage one makes is partly collected
// while another runs. Between renders that allocate alike (two renderers,
// YAML and JSON, two processes) this evens out; against a floor that
// allocates far less, the floor is charged some of the subject's
// collection and the ratio reads low: a lower bound, where the ratio of
// unpaired medians is an estimate.
func paired(b *testing.B, subject func() error, bases ...base) {
	runs := append([]func() error{subject}, make([]func() error, len(bases))...)
	for i, bs := range bases {
		runs[i+1] = bs.run
	}
	spent := make([]time.Duration, len(runs))
	op := 0
	for b.Loop() {
		for k := range runs {
			j := (op + k) % len(runs)
			start := time.Now()
			if err := runs[j](); err != nil {
				b.Fatal(err)
			}
			spent[j] += time.Since(start)
		}
		op++
	}
	for i, bs := range bases {
		if spent[i+1] > 0 {
			b.ReportMetric(float64(spent[0])/float64(spent[i+1]), bs.unit)
		}
	}
}
