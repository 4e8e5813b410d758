package main

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
)

// library loads --templates DIR when given, else the embedded library.
func (a *app) library() (*engine.Library, error) {
	var opts []engine.Option
	if a.limits != engine.DefaultLimits() {
		opts = append(opts, engine.WithLimits(a.limits))
	}
	if a.log {
		opts = append(opts, engine.WithLogger(slog.New(slog.NewJSONHandler(a.stderr, nil))))
	}
	if a.templates != "" {
		return engine.LoadDir(a.templates, opts...)
	}
	var lib *engine.Library
	var err error
	if len(opts) == 0 {
		lib, err = promptsmith.Library()
	} else {
		lib, err = engine.Load(promptsmith.FS(), opts...)
	}
	if err == nil {
		a.noteWorkingCopy(lib)
	}
	return lib, err
}

// variant loads the library and returns one of its variants.
func (a *app) variant(name string) (*engine.Variant, error) {
	lib, err := a.library()
	if err != nil {
		return nil, err
	}
	return lib.Variant(name)
}

// noteWorkingCopy says, in one line on stderr, when the embedded library is
// used while the current directory holds a templates/ folder that differs
// from it: an author editing templates would otherwise wonder why nothing
// changes.
func (a *app) noteWorkingCopy(lib *engine.Library) {
	if a.notedWorkingCopy {
		return
	}
	a.notedWorkingCopy = true
	if st, err := os.Stat(filepath.Join("templates")); err != nil || !st.IsDir() {
		return
	}
	hash, err := engine.LibraryHash(os.DirFS("."))
	if err != nil || hash == lib.Provenance().Library {
		return
	}
	a.say("note: rendering with the embedded library; ./templates differs from it (add --templates . to use the working copy)")
}

// workingCopy loads the library and names the folder that holds it, where
// testdata/golden lives: --templates DIR's, else the current directory.
func (a *app) workingCopy() (*engine.Library, string, error) {
	lib, err := a.library()
	if err != nil {
		return nil, "", err
	}
	if a.templates == "" {
		return lib, ".", nil
	}
	root, err := engine.Root(a.templates)
	return lib, root, err
}
