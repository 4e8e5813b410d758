//go:build !unix

package regular

// openNonblocking is nothing where there are no FIFOs to wait on.
const openNonblocking = 0
