//go:build race

package audit_test

// deepLevels is the depth of TestDeepChain. Rendering the chain costs the
// square of its depth (each level renders the whole text below it), and the
// race detector slows rendering several times over.
const deepLevels = 120
