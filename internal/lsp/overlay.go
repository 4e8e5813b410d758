package lsp

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// overlay is the library as the editor sees it: the files on disk, with
// the open documents' unsaved text in place of theirs (and documents not
// yet saved at all added). The engine loads a library from it as from the
// folder itself.
type overlay struct {
	base fs.FS
	docs map[string]string // by slash path inside the library
}

func (o overlay) Open(name string) (fs.File, error) {
	if text, ok := o.docs[name]; ok {
		return &memFile{Reader: bytes.NewReader([]byte(text)), info: memInfo{name: path.Base(name), size: int64(len(text))}}, nil
	}
	return o.base.Open(name)
}

func (o overlay) ReadFile(name string) ([]byte, error) {
	if text, ok := o.docs[name]; ok {
		return []byte(text), nil
	}
	return fs.ReadFile(o.base, name)
}

func (o overlay) Stat(name string) (fs.FileInfo, error) {
	if text, ok := o.docs[name]; ok {
		return memInfo{name: path.Base(name), size: int64(len(text))}, nil
	}
	return fs.Stat(o.base, name)
}

// ReadDir lists the folder on disk with the open documents in it added.
func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.base, name)
	var added []fs.DirEntry
	for p, text := range o.docs {
		dir, base := path.Split(p)
		if strings.TrimSuffix(dir, "/") != name && !(name == "." && dir == "") {
			continue
		}
		if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == base }) {
			added = append(added, fs.FileInfoToDirEntry(memInfo{name: base, size: int64(len(text))}))
		}
	}
	if err != nil && len(added) == 0 {
		return nil, err
	}
	entries = append(entries, added...)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// list is every file below dir (a slash path), examples/ left out, sorted.
func (o overlay) list(dir string) []string {
	var out []string
	var walk func(d string)
	walk = func(d string) {
		entries, _ := o.ReadDir(d)
		for _, e := range entries {
			p := d + "/" + e.Name()
			switch {
			case e.IsDir() && e.Name() != "examples":
				walk(p)
			case !e.IsDir():
				out = append(out, p)
			}
		}
	}
	walk(dir)
	return out
}
