package gitlib

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
)

// Load reads the tree and loads its library with the engine, as a
// working copy's is loaded: a variant that does not load fails when it
// is used, with an error that names the ref (AtRef). The library holds
// its files in memory and needs nothing of the repository afterwards.
func (t *Tree) Load(ctx context.Context, opts ...engine.Option) (*engine.Library, error) {
	if err := t.checkSizes(engine.LimitsOf(opts...)); err != nil {
		return nil, t.AtRef(err)
	}
	fsys, err := t.Read(ctx)
	if err != nil {
		return nil, err
	}
	if t.repo.prefix != "" {
		// Positions read as paths in the tree, which the author can
		// open: lib/templates/note/prompt.yaml:3.
		opts = append([]engine.Option{engine.WithOrigin(t.repo.prefix)}, opts...)
	}
	lib, err := engine.Load(fsys, opts...)
	if err != nil {
		return nil, t.AtRef(err)
	}
	return lib, nil
}

// AtRef returns err, an error of the library at the tree's commit, saying
// so: its reason starts with the ref and the commit, and a hint says
// where to fix it, since the file it names is not the one in the work
// tree. Errors that concern no part of the library (no position, variant
// or example), and those that say so already, are returned as they are.
func (t *Tree) AtRef(err error) error {
	e := engine.AsError(err)
	if e == nil || e.Kind != engine.KindTemplate && e.Kind != engine.KindUsage ||
		e.Position == "" && e.Variant == "" && e.Example == "" {
		return err
	}
	at := fmt.Sprintf("at %s (commit %s): ", t.Ref, short(t.Commit))
	if strings.HasPrefix(e.Reason, at) {
		return err
	}
	c := *e
	c.Reason = at + e.Reason
	if file := positionFile(e.Position); c.Kind == engine.KindTemplate && file != "" {
		c.Hints = append(slices.Clone(e.Hints), fmt.Sprintf(
			"the file is as commit %s holds it (git show %s:%s): fix it in a new commit, or give another ref",
			short(t.Commit), short(t.Commit), file))
	}
	return &c
}

// positionFile is the file of a position, file:line:col.
func positionFile(position string) string {
	file, _, _ := strings.Cut(position, ":")
	return file
}

// checkSizes refuses a tree with a file over the limits' FileBytes, or
// files over their LibraryBytes together, by the sizes git ls-tree
// listed, before any is read: a label's commit can be pushed by anyone who
// can push, and parsing a template costs many times its size.
func (t *Tree) checkSizes(l engine.Limits) error {
	var total int64
	for _, b := range t.blobs {
		total += b.size
		if b.size > int64(l.FileBytes) || total > int64(l.LibraryBytes) {
			return engine.LibrarySizeError(t.repo.prefix+b.path, b.size, total, l)
		}
	}
	return nil
}
