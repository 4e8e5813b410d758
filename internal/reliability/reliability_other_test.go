//go:build !unix

package reliability_test

import "testing"

func mkfifo(t *testing.T, path string) bool { return false }
