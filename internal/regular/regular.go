// Package regular opens files that are regular files and nothing else:
// a named pipe blocks its reader until a writer comes, which may be
// never, and a device or a socket may never end. The command line reads
// every file it is given (an input, a folder of inputs, a token, a key,
// a labels file) through it.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the cause of a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading when it is a regular file (through symbolic
// links): anything else is refused by its Stat, and opened without
// blocking in case it was swapped for a pipe in between, then refused.
func Open(path string) (*os.File, error) {
	f, _, err := OpenFrom(Host{}, path, notRegular)
	return f, err
}

// Opener is what a file is opened through: Host, or an *os.Root, which
// keeps the files it opens inside its directory.
type Opener interface {
	Stat(name string) (fs.FileInfo, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
}

// Host opens a file by its path on the host, as package os does.
type Host struct{}

// Stat is os.Stat.
func (Host) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// OpenFile is os.OpenFile.
func (Host) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// OpenFrom opens name through from as Open opens a path, and returns the
// open file's Stat with it; refuse is the error of a file of mode m that
// is not regular, for a caller that words it its own way.
func OpenFrom(from Opener, name string, refuse func(m fs.FileMode) error) (*os.File, fs.FileInfo, error) {
	st, err := from.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, refuse(st.Mode())
	}
	f, err := from.OpenFile(name, os.O_RDONLY|openNonblocking, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = refuse(st.Mode())
		}
		return nil, nil, err
	}
	return f, st, nil
}

// ReadFile reads path, a regular file, up to limit bytes (no limit when
// limit <= 0); a longer file gives limit+1 bytes, for the caller to refuse.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit <= 0 {
		return io.ReadAll(f)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// Check refuses a directory entry that is not a regular file, or a
// symbolic link to one, without opening it.
func Check(path string, d fs.DirEntry) error {
	if d.Type().IsRegular() {
		return nil
	}
	if d.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		if st.Mode().IsRegular() {
			return nil
		}
		return notRegular(st.Mode())
	}
	return notRegular(d.Type())
}

// notRegular is the error of a file of mode m; a named pipe is named
// by its other name too, FIFO.
func notRegular(m fs.FileMode) error {
	kind := Kind(m)
	if m&fs.ModeNamedPipe != 0 {
		kind += " (FIFO)"
	}
	return fmt.Errorf("%w: it is %s", ErrNotRegular, kind)
}

// Kind says what a file that is not regular is: "a named pipe", "a
// device", "a socket", "a directory", or "not a file".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a file"
}
