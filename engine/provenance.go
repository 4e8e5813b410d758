package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"path"
	"runtime/debug"
	"slices"
	"strings"
)

// Provenance says exactly which library produced a prompt: the SHA-256 of
// the library's files (manifests, templates and schemas, not examples or
// docs) in a canonical order, the variant's own share of them, and the
// version of the program. Changing one template changes the library hash
// and that variant's hash, and no other variant's.
type Provenance struct {
	Library string `json:"library"`       // hex SHA-256 of every file of the library
	Short   string `json:"library_short"` // its first 12 hex digits
	Variant string `json:"variant"`       // hex SHA-256 of the variant's manifest, templates and schema
	Version string `json:"version"`       // the module version of the program that rendered it
}

const modulePath = "github.com/promptsmith/promptsmith"

// Version is the module version of the running program ("(devel)" for a
// build from a working copy without version control information).
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if info.Main.Path == modulePath {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == modulePath {
			return d.Version
		}
	}
	return "(unknown)"
}

// libraryFile reports whether a path of the library is one that makes
// prompts: a manifest, a template or a schema.
func libraryFile(p string) bool {
	switch {
	case strings.HasPrefix(p, "schemas/"):
		return strings.HasSuffix(p, ".schema.json")
	case strings.HasPrefix(p, "templates/"):
		return !strings.Contains(p, "/examples/") && (strings.HasSuffix(p, ".tmpl") || path.Base(p) == "prompt.yaml")
	}
	return false
}

// hashFiles is the SHA-256 of files in path order, each written as its
// length-prefixed path and length-prefixed bytes, so that no two sets of
// files share a hash.
func hashFiles(fsys fs.FS, files []string) (string, error) {
	files = slices.Sorted(slices.Values(files))
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return "", err
		}
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		h.Write([]byte(f))
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(data)))])
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// libraryFiles lists the files of the library that make prompts.
func libraryFiles(fsys fs.FS) ([]string, error) {
	var files []string
	for _, root := range []string{"templates", "schemas"} {
		if _, err := fs.Stat(fsys, root); err != nil {
			continue // a library without schemas fails later, naming what is missing
		}
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && libraryFile(p) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// Provenance is the library's identity, without a variant's share. A
// library loaded from a folder (LoadDir) reads the whole folder for it,
// once; Library and Short are empty when it cannot (Err says why).
func (lib *Library) Provenance() Provenance {
	if lib.whole() != nil {
		return Provenance{Version: lib.provenance.Version}
	}
	return lib.provenance
}

// Hash is the hex SHA-256 of the variant's own files.
func (v *Variant) Hash() string { return v.hash }

// LibraryHash is the hash Provenance.Library gives a library in fsys,
// without loading it: to tell whether a working copy differs from a
// loaded library.
func LibraryHash(fsys fs.FS) (string, error) {
	files, err := libraryFiles(fsys)
	if err != nil {
		return "", err
	}
	return hashFiles(fsys, files)
}
