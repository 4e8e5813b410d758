package audit_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// TestGroupCommit: records that arrive while a transaction is written go
// together in the next one, and none is answered before it is stored.
// With one writer held in its first transaction, the records that arrive
// meanwhile wait; released, the writer takes them all in one transaction.
func TestGroupCommit(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target, audit.WithWriters(1))
		const n = 12
		results := make([]*engine.Result, n)
		for i := range results {
			results[i] = delegate(t, "group commit parent", "task "+string(rune('a'+i)))
		}
		release := make(chan struct{})
		var (
			mu    sync.Mutex
			sizes []int
		)
		audit.OnTransaction(store, func(k int) {
			mu.Lock()
			sizes = append(sizes, k)
			first := len(sizes) == 1
			mu.Unlock()
			if first {
				<-release
			}
		})
		hashes, errs := make([]string, n), make([]error, n)
		var wg sync.WaitGroup
		record := func(i int) {
			defer wg.Done()
			hashes[i], errs[i] = store.Record(context.Background(), delegation(t), results[i])
		}
		wg.Add(1)
		go record(0)
		taken := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(sizes)
		}
		for audit.Waiting(store) != 0 || taken() == 0 {
			runtime.Gosched() // the writer takes the first record and holds it
		}
		wg.Add(n - 1)
		for i := 1; i < n; i++ {
			go record(i)
		}
		for audit.Waiting(store) != n-1 {
			runtime.Gosched() // every other record waits for the writer
		}
		close(release)
		wg.Wait()
		mu.Lock()
		got := append([]int(nil), sizes...)
		mu.Unlock()
		if len(got) != 2 || got[0] != 1 || got[1] != n-1 {
			t.Fatalf("transactions of %v records, want [1 %d]", got, n-1)
		}
		for i, h := range hashes {
			if errs[i] != nil {
				t.Fatalf("record %d: %v", i, errs[i])
			}
			if chain := chainOf(t, store, h); len(chain) != 2 || chain[0].Hash != h {
				t.Fatalf("record %d: chain %v", i, chain)
			}
		}
	})
}
