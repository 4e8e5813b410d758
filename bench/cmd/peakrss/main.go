// Command peakrss runs a command, its output discarded, and prints the
// command's peak resident set size in KiB (rusage Maxrss). The benchmarks
// run it between themselves and the command measured: a child forked from
// the benchmark's process starts with that process's pages counted, which
// Linux reports as the child's peak, so the child must be forked from a
// small process instead.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peakrss COMMAND [ARG]...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "peakrss: no rusage on this system")
		os.Exit(1)
	}
	fmt.Println(ru.Maxrss)
}
