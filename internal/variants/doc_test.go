// Package variants_test holds the tests of the library that ships in the
// binary, variant by variant: each against its seed (squad's protocol.ts,
// workspace's Molecule AI builder, ...), every example against its golden
// file, budgets, determinism under concurrency, fuzzing of every variant,
// and the benchmarks of whole renders.
package variants_test
