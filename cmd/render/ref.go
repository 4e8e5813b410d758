package main

import (
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitlib"
)

// refUsage is what --ref does.
const refUsage = "render from this ref (branch, tag, full ref name refs/... or commit hash, optionally ~N) of the working copy's git repository: the library as that commit holds it, never the work tree; a short name that could mean two things is refused"

// repository opens the git repository of the working copy, the one
// --templates names or the current directory is in: --ref and render diff
// read refs of it.
func (a *app) repository() (*gitlib.Repo, error) {
	if a.templates == "" {
		return nil, (&engine.Error{Kind: engine.KindUsage,
			Reason: "a ref is read from the git repository of a library working copy, and there is none here"}).
			Hint("run render in your working copy (a folder holding templates/ and schemas/, in a git repository), or give --templates DIR")
	}
	root, err := engine.Root(a.templates)
	if err != nil {
		return nil, err
	}
	return gitlib.Open(a.ctx, "", root)
}

// tree lists the library at ref in the working copy's repository.
func (a *app) tree(ref string) (*gitlib.Tree, error) {
	repo, err := a.repository()
	if err != nil {
		return nil, err
	}
	return repo.Tree(a.ctx, ref)
}

// libraryAt loads the library at --ref, with the options a working
// copy's is loaded with, and keeps its tree so that a variant's error can
// name the ref (atRef).
func (a *app) libraryAt(ref string, opts []engine.Option) (*engine.Library, error) {
	t, err := a.tree(ref)
	if err != nil {
		return nil, err
	}
	lib, err := t.Load(a.ctx, opts...)
	if err != nil {
		return nil, err
	}
	a.refTree = t
	return lib, nil
}

// atRef is err, an error of the library --ref loaded, saying which ref
// and commit the file at fault is from; without --ref, err itself.
func (a *app) atRef(err error) error {
	if a.refTree == nil || err == nil {
		return err
	}
	return a.refTree.AtRef(err)
}

// refNotHere refuses --ref for a command that checks the working copy
// itself, its golden files included.
func refNotHere() error {
	return (&engine.Error{Kind: engine.KindUsage, Flag: "--ref",
		Reason: "--ref does not apply here: this command checks the working copy, golden files included"}).
		Hint("to see what changed since a ref, run render diff REF")
}
