//go:build !linux

package main

import "testing"

// dirChanges is a closed channel where the tests have no inotify: the
// tests that wait on it for a file look at the folder over and over.
func dirChanges(t *testing.T, dir string) <-chan struct{} {
	changed := make(chan struct{})
	close(changed)
	return changed
}
