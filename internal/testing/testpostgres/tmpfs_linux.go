package testpostgres

import (
	"os"
	"syscall"
)

// sharedMemory is /dev/shm when it is a tmpfs with room for a cluster of
// the tests (a gigabyte free), else "". A throwaway cluster need not
// survive a crash, and on a busy disk making its data folder's thousand
// files cost initdb more than all its own work.
func sharedMemory() string {
	const tmpfsMagic = 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic || uint64(st.Bavail)*uint64(st.Bsize) < 1<<30 {
		return ""
	}
	return "/dev/shm"
}

// clusterFolder makes the folder of a new cluster: in shared memory for a
// throwaway one when there is room (sharedMemory), else in the temporary
// folder, where a durable one always goes.
func clusterFolder(pattern string, durability bool) (string, error) {
	if shm := sharedMemory(); shm != "" && durability == throwaway {
		if dir, err := os.MkdirTemp(shm, pattern); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", pattern)
}
