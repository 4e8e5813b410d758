package gitlib

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// FS is the files of a library read from a commit, held in memory: the
// engine loads a library from an fs.FS, and a commit's tree is not a
// folder on disk. It is read-only and safe for concurrent use.
type FS struct {
	files map[string][]byte // by slash path, relative to the library's root
}

// Open opens a file or a directory (one that holds a file).
func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := f.files[name]; ok {
		return &openFile{info: fileInfo{name: path.Base(name), size: int64(len(data))}, data: data}, nil
	}
	entries, err := f.ReadDir(name)
	if err != nil {
		return nil, err
	}
	return &openDir{info: fileInfo{name: path.Base(name), dir: true}, entries: entries}, nil
}

// ReadFile returns a copy of a file's bytes, which the caller may change,
// as fs.ReadFileFS asks.
func (f *FS) ReadFile(name string) ([]byte, error) {
	data, ok := f.files[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(data), nil
}

// ReadDir lists a directory, sorted by name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]fileInfo{}
	for p, data := range f.files {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if child, _, isDir := strings.Cut(rest, "/"); isDir {
			seen[child] = fileInfo{name: child, dir: true}
		} else {
			seen[child] = fileInfo{name: child, size: int64(len(data))}
		}
	}
	if len(seen) == 0 && name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries := make([]fs.DirEntry, 0, len(seen))
	for _, info := range seen {
		entries = append(entries, fs.FileInfoToDirEntry(info))
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Stat describes a file or a directory.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	return file.Stat()
}

// fileInfo describes a file or directory of an FS: read-only, of no time.
type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// openFile is an open file of an FS.
type openFile struct {
	info   fileInfo
	data   []byte
	offset int
}

func (o *openFile) Stat() (fs.FileInfo, error) { return o.info, nil }
func (o *openFile) Close() error               { return nil }
func (o *openFile) Read(p []byte) (int, error) {
	if o.offset >= len(o.data) {
		return 0, io.EOF
	}
	n := copy(p, o.data[o.offset:])
	o.offset += n
	return n, nil
}

// openDir is an open directory of an FS.
type openDir struct {
	info    fileInfo
	entries []fs.DirEntry
}

func (o *openDir) Stat() (fs.FileInfo, error) { return o.info, nil }
func (o *openDir) Close() error               { return nil }
func (o *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: o.info.name, Err: fs.ErrInvalid}
}

// ReadDir lists the directory's next n entries (all of them for n <= 0).
func (o *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := o.entries
		o.entries = nil
		return out, nil
	}
	if len(o.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(o.entries))
	out := o.entries[:n]
	o.entries = o.entries[n:]
	return out, nil
}
