package audit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
)

// BenchmarkRecordNested records a prompt whose parent nests more and more
// levels of markers into SQLite. The time per byte stays flat as the depth
// grows: the cost of a record is linear in the prompt's size.
func BenchmarkRecordNested(b *testing.B) {
	v := delegation(b)
	for _, depth := range []int{1_000, 4_000, 16_000} {
		res := delegate(b, nestedMarkers(depth), "t")
		b.Run(fmt.Sprint("levels=", depth), func(b *testing.B) {
			store, err := audit.Open(context.Background(), filepath.Join(b.TempDir(), "audit.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			b.SetBytes(int64(len(res.Text)))
			for b.Loop() {
				b.StopTimer()
				store.Close()
				store, err = audit.Open(context.Background(), filepath.Join(b.TempDir(), "audit.db")) // each record writes everything
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := store.Record(context.Background(), v, res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
