package gitlib

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine/problem"
	"github.com/promptsmith/promptsmith/internal/gitsafe"
)

// Tree is the library of one commit, listed but not yet read.
type Tree struct {
	Ref    string // as the caller named it
	Commit string // the commit's full hash
	repo   *Repo
	blobs  []blob // sorted by path
}

// blob is one file of a library's tree.
type blob struct {
	path string // relative to the library's folder
	id   string // git's hash of its bytes
}

// Tree lists the library at ref: the regular files under templates/ and
// schemas/ of the library's folder in the commit's tree. Submodules and
// symbolic links are left out. A commit without a variant is refused,
// naming the ref.
func (r *Repo) Tree(ctx context.Context, ref string) (*Tree, error) {
	commit, err := r.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	out, err := r.git.Output(ctx, "--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", commit,
		"--", r.prefix+"templates", r.prefix+"schemas")
	if err != nil {
		return nil, &problem.Error{Kind: problem.KindInternal, Path: r.dir,
			Reason: fmt.Sprintf("cannot list the tree of %s (%s): %v%s", ref, commit, err, gitsafe.Stderr(err)), Err: err}
	}
	t := &Tree{Ref: ref, Commit: commit, repo: r}
	for _, rec := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		// <mode> SP <type> SP <object> TAB <path>
		meta, name, ok := strings.Cut(string(rec), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" || fields[0] == "120000" {
			continue // a submodule (commit), a symbolic link
		}
		if rel, ok := strings.CutPrefix(name, r.prefix); ok {
			t.blobs = append(t.blobs, blob{path: rel, id: fields[2]})
		}
	}
	slices.SortFunc(t.blobs, func(a, b blob) int { return strings.Compare(a.path, b.path) })
	if len(t.Variants()) == 0 {
		return nil, &problem.Error{Kind: problem.KindUsage, Path: r.dir,
			Reason: fmt.Sprintf("%s (commit %s) holds no library at %stemplates/: no templates/<variant>/prompt.yaml", ref, short(commit), r.prefix),
			Hints:  []string{"pick a ref from after the library was added (git log --oneline -- templates lists its commits)"}}
	}
	return t, nil
}

// Variants lists the variants of the tree (templates/<name>/prompt.yaml),
// sorted.
func (t *Tree) Variants() []string {
	var names []string
	for _, b := range t.blobs {
		if dir, file := path.Split(b.path); file == "prompt.yaml" && strings.Count(dir, "/") == 2 && strings.HasPrefix(dir, "templates/") {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(dir, "templates/"), "/"))
		}
	}
	return names
}

// Key identifies the library's files, examples included: two trees with
// the same key hold the same files, byte for byte, whatever their
// commits.
func (t *Tree) Key() string {
	return t.key(func(string) bool { return true })
}

// VariantKey identifies what one variant renders with: its folder and
// every schema (a schema may refer to another's definitions). A variant
// whose key is equal in two trees renders every input the same in both.
func (t *Tree) VariantKey(name string) string {
	dir := "templates/" + name + "/"
	return t.key(func(p string) bool { return strings.HasPrefix(p, dir) || strings.HasPrefix(p, "schemas/") })
}

// key hashes the paths and blob ids of the files keep accepts, in path
// order, each length-prefixed so that no two lists share a hash.
func (t *Tree) key(keep func(string) bool) string {
	h := sha256.New()
	for _, b := range t.blobs {
		if keep(b.path) {
			fmt.Fprintf(h, "%d:%s%d:%s", len(b.path), b.path, len(b.id), b.id)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// short is a commit's hash as git log --oneline shows it.
func short(commit string) string { return commit[:min(len(commit), 12)] }
