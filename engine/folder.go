package engine

import (
	"bytes"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing/fstest"
)

// folder is a library folder read through an os.Root as its files are
// needed, each file at most once: a render in a working copy reads the
// variant it renders, its schema and nothing else, and a file read for
// parsing is the file its hash is taken of, never a later edit of it.
// Nothing outside the folder is ever read (the root refuses a link out
// of it, and the variant holding one does not load). Directories are
// listed from the disk each time they are walked.
type folder struct {
	fsys   fs.FS  // an os.Root's, closed when the folder is collected, as an os.File
	origin string // the folder, as errors name it
	limit  int    // Limits.FileBytes: a file that grew past it since its size was checked is refused

	mu   sync.Mutex
	read map[string][]byte
	errs map[string]error
}

func openFolder(dir string, limit int) (*folder, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &folder{fsys: r.FS(), origin: dir, limit: limit, read: map[string][]byte{}, errs: map[string]error{}}, nil
}

// ReadFile reads a file of the folder, from memory when it was read
// before, and returns a copy the caller may change (as fs.ReadFileFS asks).
func (f *folder) ReadFile(name string) ([]byte, error) {
	data, err := f.bytes(name)
	return bytes.Clone(data), err
}

// bytes is the file as it was first read.
func (f *folder) bytes(name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.read[name]; ok {
		return data, nil
	}
	if err := f.errs[name]; err != nil {
		return nil, err
	}
	data, err := f.readOnce(name)
	if err != nil {
		f.errs[name] = err
		return nil, err
	}
	f.read[name] = data
	return data, nil
}

func (f *folder) readOnce(name string) ([]byte, error) {
	file, err := f.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	n := int64(f.limit)
	if n < math.MaxInt64 {
		n++ // one byte past the limit tells a file over it
	}
	data, err := io.ReadAll(io.LimitReader(file, n))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if len(data) > f.limit {
		size := int64(len(data))
		if info, err := file.Stat(); err == nil {
			size = max(size, info.Size())
		}
		return nil, LibrarySizeError(filepath.Join(f.origin, name), size, size, Limits{FileBytes: f.limit, LibraryBytes: int(size)})
	}
	return data, nil
}

// Open opens a file (read once, served from memory) or a directory (from
// the disk).
func (f *folder) Open(name string) (fs.File, error) {
	info, err := fs.Stat(f.fsys, name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return f.fsys.Open(name)
	}
	data, err := f.bytes(name)
	if err != nil {
		return nil, err
	}
	return fstest.MapFS{name: &fstest.MapFile{Data: data, Mode: info.Mode(), ModTime: info.ModTime()}}.Open(name)
}

func (f *folder) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.fsys, name) }

func (f *folder) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.fsys, name) }
