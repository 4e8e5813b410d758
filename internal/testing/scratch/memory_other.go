//go:build !linux

package scratch

// Memory is "": a tmpfs for the tests' files is looked for on Linux only.
func Memory() string { return "" }
