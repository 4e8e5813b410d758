//go:build !race

package audit_test

// The depths of TestDeepChain and TestTenThousandLevels. Rendering a chain
// costs the square of its depth (each level renders the whole text below
// it): 500 levels, 1.3 MB at the last, take a few seconds on two cores.
const (
	deepLevels   = 500
	markerLevels = 10_000
)
