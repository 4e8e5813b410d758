//go:build race

package audit_test

// The depths of TestDeepChain and TestTenThousandLevels under the race
// detector, which slows rendering and hashing several times over.
// Rendering a chain costs the square of its depth (each level renders the
// whole text below it).
const (
	deepLevels   = 120
	markerLevels = 2_000
)
