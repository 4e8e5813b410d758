package lsp

import "github.com/promptsmith/promptsmith/engine"

// snapshot is the library as the open documents make it, at one
// generation of their edits.
type snapshot struct {
	gen   int
	root  string
	files overlay
	lib   *engine.Library
	err   error // the library does not load at all
	// maxFile is the largest file of the folder text reads: the library's
	// file limit, which the engine checks before it reads one too.
	maxFile int64
}

// text is a library file's text in the snapshot, or false: false too for
// a file on disk over the file limit, which is not read (the diagnostic
// that says so stands at its start).
func (sn *snapshot) text(p string) (string, bool) {
	if _, open := sn.files.docs[p]; !open {
		if info, err := sn.files.Stat(p); err != nil || info.Size() > sn.maxFile {
			return "", false
		}
	}
	b, err := sn.files.ReadFile(p)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// snapshot loads the library of the documents as they are now, or returns
// the one loaded for them already. nil: no library is served.
func (s *Server) snapshot() *snapshot {
	s.mu.Lock()
	if s.fsRoot == nil {
		s.mu.Unlock()
		return nil
	}
	if s.snap != nil && s.snap.gen == s.gen {
		sn := s.snap
		s.mu.Unlock()
		return sn
	}
	docs := make(map[string]string, len(s.docs))
	for p, d := range s.docs {
		docs[p] = d.text
	}
	sn := &snapshot{gen: s.gen, root: s.root, files: overlay{base: s.fsRoot.FS(), docs: docs}}
	s.mu.Unlock()
	opts := append([]engine.Option{engine.WithOrigin(sn.root)}, s.opts.Engine...)
	sn.maxFile = int64(engine.LimitsOf(opts...).FileBytes)
	sn.lib, sn.err = engine.Load(sn.files, opts...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil || s.snap.gen < sn.gen {
		s.snap = sn
	}
	return sn
}

// variant is the named variant of the snapshot, or, when the text as
// typed breaks it (an action half written), its last version that loaded:
// completion and hover go on while the author types. nil: it never loaded.
func (s *Server) variant(sn *snapshot, name string) *engine.Variant {
	if sn.err == nil {
		if v, err := sn.lib.Variant(name); err == nil {
			s.mu.Lock()
			if g, ok := s.good[name]; !ok || g.gen <= sn.gen {
				s.good[name] = goodVariant{v, sn.gen}
			}
			s.mu.Unlock()
			return v
		}
	}
	s.mu.Lock()
	g, ok := s.good[name]
	s.mu.Unlock()
	if ok {
		return g.v
	}
	// none loaded yet in this session: the version saved on disk
	disk := overlay{base: sn.files.base}
	lib, err := engine.Load(disk, append([]engine.Option{engine.WithOrigin(sn.root)}, s.opts.Engine...)...)
	if err != nil {
		return nil
	}
	v, err := lib.Variant(name)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.good[name]; !ok {
		s.good[name] = goodVariant{v, -1}
	}
	return s.good[name].v
}

// goodVariant is a variant that loaded, and the generation it loaded at.
type goodVariant struct {
	v   *engine.Variant
	gen int
}
