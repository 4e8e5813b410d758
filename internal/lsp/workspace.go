package lsp

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
)

// localPath is the folder or file a file URI names.
func localPath(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "file" || p.Path == "" {
		return "", false
	}
	return filepath.FromSlash(p.Path), true
}

// findLibrary finds the library working copy of a workspace folder: the
// folder itself or the nearest one above it holding templates/ and
// schemas/ with a variant, as render finds it; else the first such folder
// below it (an editor opened on the repository that holds the library),
// at most three levels down.
func findLibrary(dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if engine.IsWorkingCopy(d) {
			return d, true
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	level := []string{abs}
	for depth := 0; depth < 3 && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
					continue
				}
				sub := filepath.Join(d, e.Name())
				if engine.IsWorkingCopy(sub) {
					return sub, true
				}
				next = append(next, sub)
			}
		}
		level = next
	}
	return "", false
}

// setRoot serves the library at root, read through an os.Root so that
// nothing outside it is read (a link out of it is refused, as render
// refuses it).
func (s *Server) setRoot(root string) {
	r, err := os.OpenRoot(root)
	if err != nil {
		s.log.Warn("cannot open the library folder", "root", root, "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.root, s.fsRoot = root, r
}

func (s *Server) closeRoot() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fsRoot != nil {
		s.fsRoot.Close()
	}
}

// variants lists the library's variants: the folders with a manifest, as
// the editor's buffers have them.
func (s *Server) variants() []string {
	sn := s.snapshot()
	if sn == nil {
		return nil
	}
	names, _ := fs.Glob(sn.files, "templates/*/prompt.yaml")
	var out []string
	for _, n := range names {
		out = append(out, strings.Split(n, "/")[1])
	}
	return append(out, "") // "" is the library as a whole
}

// affected lists the variants a change to the file at p may change the
// diagnostics of: its own, or every one for a schema (which others may
// $ref), or none.
func (s *Server) affected(p string) []string {
	switch kind, variant := classify(p); kind {
	case kindSchema:
		return s.variants()
	case kindOther:
		if variant == "" {
			return nil
		}
		return []string{variant, ""}
	default:
		return []string{variant, ""}
	}
}
