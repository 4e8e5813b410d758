package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"sync"
	"sync/atomic"
)

// VariantShare lets libraries loaded with ShareVariants load each variant
// once: a variant whose files, schemas and origin are those of a variant
// loaded before takes what that load computed (its parsed templates,
// compiled schema, examples) instead of loading again. A server that
// serves many versions of a library (labels at git commits) pays for
// the variants that differ, not for every version. What a library gives
// its variants of its own (its options, its provenance, the copies of
// the templates its renders run) is never shared.
//
// The zero value is an empty share, safe for concurrent use. It keeps
// what it records until Retain drops it.
type VariantShare struct {
	mu      sync.Mutex
	entries map[string]*shareEntry
	// parsed counts the variants loaded from their files by libraries of
	// the share, those that failed included: what sharing did not save.
	parsed atomic.Int64
}

// shareEntry is one variant's files, or their load under way.
type shareEntry struct {
	done  chan struct{} // closed once the load is over
	files *variantFiles // nil when it failed
}

// ShareVariants makes Load take the variants it can from s, and record in
// s those it loads. Only the files decide: the options that make a
// variant's renders differ (limits, logger) stay the library's own, and
// the origin (WithOrigin) is part of the key, since error positions and
// example names read it.
func ShareVariants(s *VariantShare) Option { return func(o *options) { o.share = s } }

// Parsed is how many variants libraries of the share have loaded from
// their files: the variants asked for less those shared.
func (s *VariantShare) Parsed() int64 { return s.parsed.Load() }

// Len is how many variants the share holds.
func (s *VariantShare) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Retain drops every variant that no variant loaded by libs uses, so that
// the share holds no more than the libraries still served: its caller
// calls it with those, after each change of what it serves. A variant
// being loaded meanwhile is kept.
func (s *VariantShare) Retain(libs ...*Library) {
	used := map[string]bool{}
	for _, lib := range libs {
		if lib == nil {
			continue
		}
		lib.mu.Lock()
		for _, v := range lib.variants {
			used[v.key] = true
		}
		lib.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, e := range s.entries {
		select {
		case <-e.done:
			if !used[key] {
				delete(s.entries, key)
			}
		default: // under way
		}
	}
}

// get returns the variant recorded under key, waiting for a load of it
// under way, or loads it with load and records it. A load that fails is
// not recorded: each library that asks for it loads it itself, for an
// error in its own terms.
func (s *VariantShare) get(key string, load func() (*variantFiles, error)) (*variantFiles, error) {
	s.mu.Lock()
	e := s.entries[key]
	if e == nil {
		e = &shareEntry{done: make(chan struct{})}
		if s.entries == nil {
			s.entries = map[string]*shareEntry{}
		}
		s.entries[key] = e
		s.mu.Unlock()
		return s.fill(key, e, load)
	}
	s.mu.Unlock()
	<-e.done
	if e.files != nil {
		return e.files, nil
	}
	s.parsed.Add(1)
	return load()
}

// fill loads the entry's variant; whatever happens, its waiters are let go.
func (s *VariantShare) fill(key string, e *shareEntry, load func() (*variantFiles, error)) (f *variantFiles, err error) {
	defer func() {
		if f == nil {
			s.mu.Lock()
			if s.entries[key] == e {
				delete(s.entries, key)
			}
			s.mu.Unlock()
		}
		close(e.done)
	}()
	s.parsed.Add(1)
	if f, err = load(); err != nil {
		return nil, err
	}
	f.key = key
	e.files = f
	return f, nil
}

// filesOf loads the variant in dir, or takes it from the library's share.
// lib.mu is held: waiting here for another library's load of the same
// files cannot wait for lib, since a load waits for nothing.
func (lib *Library) filesOf(dir string) (*variantFiles, error) {
	s := lib.opts.share
	if s == nil {
		return lib.readVariant(dir)
	}
	key, err := lib.variantKey(dir)
	if err != nil { // the load says what cannot be read
		s.parsed.Add(1)
		return lib.readVariant(dir)
	}
	return s.get(key, func() (*variantFiles, error) { return lib.readVariant(dir) })
}

// variantKey identifies everything a variant's load reads: every file of
// its folder, every schema (a $ref may reach any of them) and the origin
// its positions are named with. No option of the library changes what is
// loaded otherwise: limits and the logger act on renders only.
func (lib *Library) variantKey(dir string) (string, error) {
	if lib.schemaKey == "" {
		return "", fs.ErrNotExist
	}
	files, err := filesUnder(lib.fsys, dir)
	if err != nil {
		return "", err
	}
	own, err := hashFiles(lib.fsys, files)
	if err != nil {
		return "", err
	}
	return hashStrings("variant", lib.opts.origin, lib.schemaKey, own), nil
}

// schemaKey is the hash of every file under schemas/, "" when one cannot
// be read (the library then shares nothing, and its load says why).
func schemaKey(fsys fs.FS) string {
	if _, err := fs.Stat(fsys, "schemas"); err != nil {
		return hashStrings("no schemas")
	}
	files, err := filesUnder(fsys, "schemas")
	if err != nil {
		return ""
	}
	h, err := hashFiles(fsys, files)
	if err != nil {
		return ""
	}
	return h
}

// filesUnder lists every file below dir, whatever its name.
func filesUnder(fsys fs.FS, dir string) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// hashStrings is the SHA-256 of parts, each length-prefixed so that no
// two lists share a hash.
func hashStrings(parts ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}
