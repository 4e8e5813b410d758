package scratch

import "syscall"

// Memory is /dev/shm when it is a tmpfs with room for the tests' files (a
// gigabyte free), else "".
func Memory() string {
	const tmpfsMagic = 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic || uint64(st.Bavail)*uint64(st.Bsize) < 1<<30 {
		return ""
	}
	return "/dev/shm"
}

// running reports whether a process with this id exists: signal 0 checks
// without sending. A process of another user answers EPERM, and is running.
func running(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
