package engine

import (
	"bytes"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"testing/fstest"
)

// folder is a library folder read through an os.Root as its files are
// needed, each file at most once: a render in a working copy reads the
// variant it renders, its schema and nothing else, and a file read for
// parsing is the file its hash is taken of, never a later edit of it.
// Nothing outside the folder is ever read (the root refuses a link out
// of it, and the variant holding one does not load). A directory is
// listed once too: the sizes checked are those of the files then read.
type folder struct {
	fsys   fs.FS  // an os.Root's, closed when the folder is collected, as an os.File
	origin string // the folder, as errors name it
	limit  int    // Limits.FileBytes: a file that grew past it since its size was checked is refused

	mu   sync.Mutex
	read map[string][]byte
	errs map[string]error
	// dirs are the folder's directories opened as roots of their own, by
	// path ("." for the folder): a file is opened from its directory's
	// root, not walked to from the folder's one directory at a time, which
	// cost a render a hundred opens of templates/ alone. A link that
	// leaves its directory (but not the folder) is resolved from the
	// folder's root instead, as before.
	dirMu sync.Mutex
	dirs  map[string]fs.FS
	lists map[string][]fs.DirEntry // directories listed, by path
}

func openFolder(dir string, limit int) (*folder, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &folder{fsys: r.FS(), origin: dir, limit: limit, read: map[string][]byte{}, errs: map[string]error{},
		dirs: map[string]fs.FS{".": rootFS{r}}, lists: map[string][]fs.DirEntry{}}, nil
}

// dir is the root of the directory at name, opened on first use; nil when
// it cannot be opened as one. dirMu must be held.
func (f *folder) dir(name string) fs.FS {
	if d, ok := f.dirs[name]; ok {
		return d
	}
	var d fs.FS
	if parent, ok := f.dir(path.Dir(name)).(interface {
		OpenRoot(string) (*os.Root, error)
	}); ok {
		if r, err := parent.OpenRoot(path.Base(name)); err == nil {
			d = rootFS{r}
		}
	}
	f.dirs[name] = d
	return d
}

// inDir runs op on name's directory's root with the file's base name, or
// on the folder's root with the whole name when that fails: the error, or
// the link that leaves the directory, is the folder's to judge.
func inDir[T any](f *folder, name string, op func(fsys fs.FS, name string) (T, error)) (T, error) {
	f.dirMu.Lock()
	d := f.dir(path.Dir(name))
	f.dirMu.Unlock()
	if d != nil {
		if v, err := op(d, path.Base(name)); err == nil {
			return v, nil
		}
	}
	return op(f.fsys, name)
}

// rootFS is an os.Root's FS that can open the roots of its directories.
type rootFS struct{ *os.Root }

func (r rootFS) Open(name string) (fs.File, error)     { return r.Root.Open(name) }
func (r rootFS) Stat(name string) (fs.FileInfo, error) { return r.Root.Stat(name) }

func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.Root.FS(), name) }

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
	file, err := inDir(f, name, fs.FS.Open)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	n := int64(f.limit)
	if n < math.MaxInt64 {
		n++ // one byte past the limit tells a file over it
	}
	var buf bytes.Buffer
	if info, err := file.Stat(); err == nil && info.Size() < n {
		buf.Grow(int(info.Size()) + bytes.MinRead) // read whole at once, then its end
	}
	if _, err := buf.ReadFrom(io.LimitReader(file, n)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	data := buf.Bytes()
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
	info, err := f.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return inDir(f, name, fs.FS.Open)
	}
	data, err := f.bytes(name)
	if err != nil {
		return nil, err
	}
	return fstest.MapFS{name: &fstest.MapFile{Data: data, Mode: info.Mode(), ModTime: info.ModTime()}}.Open(name)
}

func (f *folder) Stat(name string) (fs.FileInfo, error) { return inDir(f, name, fs.Stat) }

// ReadDir lists a directory, from memory when it was listed before, and
// returns a copy the caller may change.
func (f *folder) ReadDir(name string) ([]fs.DirEntry, error) {
	f.dirMu.Lock()
	defer f.dirMu.Unlock()
	if entries, ok := f.lists[name]; ok {
		return slices.Clone(entries), nil
	}
	var entries []fs.DirEntry
	err := fs.ErrNotExist
	if d := f.dir(name); d != nil {
		entries, err = fs.ReadDir(d, ".")
	}
	if err != nil {
		if entries, err = fs.ReadDir(f.fsys, name); err != nil {
			return entries, err
		}
	}
	f.lists[name] = entries
	return slices.Clone(entries), nil
}
