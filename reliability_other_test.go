//go:build !unix

package promptsmith_test

import "testing"

func mkfifo(t *testing.T, path string) bool { return false }
