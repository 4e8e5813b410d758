package main

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/spf13/cobra"
)

// limitOptions are the load options the --max-* flags and --timeout give
// (none at their defaults): every library render loads, from a folder, a
// ref, a label or the language server, keeps the same bounds.
func (a *app) limitOptions() []engine.Option {
	if a.limits == engine.DefaultLimits() {
		return nil
	}
	return []engine.Option{engine.WithLimits(a.limits)}
}

// library loads --templates DIR when given (or the working copy found
// around the current directory, see useWorkingCopy), else the embedded
// library.
func (a *app) library() (*engine.Library, error) {
	opts := a.limitOptions()
	if a.log {
		opts = append(opts, engine.WithLogger(slog.New(slog.NewJSONHandler(a.stderr, nil))))
	}
	if a.ref != "" {
		return a.libraryAt(a.ref, opts)
	}
	if a.onDemand {
		opts = append(opts, engine.OnDemand())
	}
	if a.templates != "" {
		return engine.LoadDir(a.templates, opts...)
	}
	if len(opts) == 0 {
		return promptsmith.Library()
	}
	return engine.Load(promptsmith.FS(), opts...)
}

// variant loads the library and returns one of its variants.
func (a *app) variant(name string) (*engine.Variant, error) {
	lib, err := a.library()
	if err != nil {
		return nil, err
	}
	return lib.Variant(name)
}

// useWorkingCopy makes a command that loads a library use the working copy
// the current directory is in when neither --templates nor
// PROMPTSMITH_TEMPLATES names one: an author who edits templates and runs
// render in the repository gets what they edited, never the library built
// into the binary. It says so once, on stderr (but under --format json,
// whose stderr tools read). The audit commands load no library and search
// nothing.
func (a *app) useWorkingCopy(cmd *cobra.Command) {
	if a.templates != "" || !a.searchWorkingCopy {
		return
	}
	if f := cmd.Flags().Lookup("repo"); f != nil && (f.Value.String() != "" || os.Getenv(envName("repo")) != "") {
		return // render serve --repo serves the repository's refs, never a working copy
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "audit" || c.Name() == "help" || c.Name() == "completion" {
			return
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	root, ok := findWorkingCopy(cwd)
	if !ok {
		return
	}
	a.templates = "."
	if rel, err := filepath.Rel(cwd, root); err == nil {
		a.templates = rel
	}
	a.workingCopyFound = true
	switch {
	case a.format == "json": // under --format json, stderr is for tools: errors only
	case a.ref != "":
		a.say("using %s of the repository of the working copy at %s", a.ref, root)
	default:
		a.say("using the working copy at %s (give --templates to choose another)", root)
	}
}

// findWorkingCopy returns the nearest of dir and its parents that holds a
// library working copy: a schemas/ folder and a templates/ folder with at
// least one variant (templates/<variant>/prompt.yaml).
func findWorkingCopy(dir string) (string, bool) {
	for {
		if engine.IsWorkingCopy(dir) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// workingCopy loads the library and names the folder that holds it, where
// testdata/golden lives: --templates DIR's (or the working copy's), else
// the current directory.
func (a *app) workingCopy() (*engine.Library, string, error) {
	if a.ref != "" {
		return nil, "", refNotHere()
	}
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
