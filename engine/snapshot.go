package engine

import (
	"io/fs"
	"testing/fstest"
)

// snapshot is a library folder read into memory once. Loading hashes every
// file of the library anyway; a library that holds the bytes it hashed can
// load each variant when it is first used, after the folder is closed, and
// never from files that changed since: a render in a working copy parses
// and compiles the variant it renders, not the whole library.
//
// A file that cannot be read (a link out of the folder, which the folder's
// os.Root refuses) keeps its error, which opening it returns, so the
// variant holding it fails as it did when read from the folder.
type snapshot struct {
	fstest.MapFS
	unreadable map[string]error
}

// snapshotOf reads every file under templates/ and schemas/ of fsys.
func snapshotOf(fsys fs.FS) (*snapshot, error) {
	s := &snapshot{MapFS: fstest.MapFS{}, unreadable: map[string]error{}}
	for _, root := range []string{"templates", "schemas"} {
		if _, err := fs.Stat(fsys, root); err != nil {
			continue // Load names what is missing
		}
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				s.MapFS[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
				return nil
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				s.unreadable[p] = err
				data = nil
			}
			s.MapFS[p] = &fstest.MapFile{Data: data, Mode: 0o644}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *snapshot) Open(name string) (fs.File, error) {
	if err := s.unreadable[name]; err != nil {
		return nil, err
	}
	return s.MapFS.Open(name)
}

func (s *snapshot) ReadFile(name string) ([]byte, error) {
	if err := s.unreadable[name]; err != nil {
		return nil, err
	}
	return s.MapFS.ReadFile(name)
}
