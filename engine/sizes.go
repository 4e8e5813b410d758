package engine

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// LibrarySizeError is the error of a file over Limits.FileBytes, or of a
// library over Limits.LibraryBytes, at position (the file, as the library
// names its files). Loaders that read a library from elsewhere (a commit)
// use it to refuse a file before reading it.
func LibrarySizeError(position string, size, total int64, l Limits) error {
	if size > int64(l.FileBytes) {
		return (&Error{Kind: KindTemplate, Position: position,
			Reason: fmt.Sprintf("the file holds %s, more than the %s a library file may hold", phrase.Size(int(min(size, 1<<50))), phrase.Size(l.FileBytes))}).
			Hint("a template is a few kilobytes; split the file, or raise the limit with --max-file (Limits.FileBytes) if it really must be this large")
	}
	return (&Error{Kind: KindTemplate, Position: position,
		Reason: fmt.Sprintf("the library's files under templates/ and schemas/ hold more than %s, the most a library may hold (%s with this file)", phrase.Size(l.LibraryBytes), phrase.Size(int(min(total, 1<<50))))}).
		Hint("a library is a few hundred kilobytes; remove what does not belong under templates/ or schemas/, or raise the limit with --max-library (Limits.LibraryBytes)")
}

// maxLibraryFiles bounds the files of a library: each costs memory and
// time to list, read and parse however small it is, so that a library of
// a hundred thousand empty templates under the byte limits took
// gigabytes to load. No library an author writes comes near it; a
// library read from a commit has the same bound (internal/gitlib).
const maxLibraryFiles = 20000

// checkSizes refuses a library whose files under templates/ and schemas/
// pass Limits.FileBytes one by one or Limits.LibraryBytes together, and
// one with a file that is not a regular file once links are followed (a
// device or a named pipe, which reading would never end): before any is
// read, since parsing costs many times a file's size.
func (lib *Library) checkSizes(fsys fs.FS, roots ...string) error {
	l := lib.opts.limits
	var total int64
	files := 0
	for _, root := range roots {
		if _, err := fs.Stat(fsys, root); err != nil {
			continue // a library without schemas fails later, naming what is missing
		}
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := fs.Stat(fsys, p) // through a symbolic link
			if err != nil {
				return err
			}
			if info.IsDir() {
				return nil // a link to a folder: WalkDir does not enter it, nor does the engine
			}
			if !info.Mode().IsRegular() {
				return (&Error{Kind: KindTemplate, Position: lib.label(p),
					Reason: fmt.Sprintf("the library holds a %s, not a file", info.Mode().Type())}).
					Hint("keep only files under templates/ and schemas/")
			}
			if files++; files > maxLibraryFiles {
				return (&Error{Kind: KindTemplate, Position: lib.label(p),
					Reason: fmt.Sprintf("the library holds more than %d files under templates/ and schemas/, the most a library may hold", maxLibraryFiles)}).
					Hint("a library is a few hundred files; remove what does not belong under templates/ or schemas/")
			}
			total += info.Size()
			if info.Size() > int64(l.FileBytes) || total > int64(l.LibraryBytes) {
				return LibrarySizeError(lib.label(p), info.Size(), total, l)
			}
			return nil
		})
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return err
			}
			return problem.Template(lib.label(root), "cannot list the library: %v", err)
		}
	}
	return nil
}
