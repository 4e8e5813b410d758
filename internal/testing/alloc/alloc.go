// Package alloc measures what code allocates, for the tests that bound it.
package alloc

import "runtime"

// Bytes is how many bytes f allocates on the heap (a collection runs
// first).
func Bytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
