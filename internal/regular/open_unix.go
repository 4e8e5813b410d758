//go:build unix

package regular

import "syscall"

// openNonblocking opens a file without waiting for it: a FIFO opens at once
// instead of waiting for a writer.
const openNonblocking = syscall.O_NONBLOCK
