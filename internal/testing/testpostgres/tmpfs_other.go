//go:build !linux

package testpostgres

import "os"

// clusterFolder makes the folder of a new cluster in the temporary folder.
func clusterFolder(pattern string, durability bool) (string, error) {
	return os.MkdirTemp("", pattern)
}
