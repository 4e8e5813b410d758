package gitlib

import (
	"bufio"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
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
	size int64  // as git ls-tree -l lists it
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
	t := &Tree{Ref: ref, Commit: commit, repo: r}
	if err := r.list(ctx, commit, t); err != nil {
		return nil, err
	}
	slices.SortFunc(t.blobs, func(a, b blob) int { return strings.Compare(a.path, b.path) })
	if len(t.Variants()) == 0 {
		return nil, &engine.Error{Kind: engine.KindUsage, Path: r.dir,
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
	return t.key(variantFiles(name))
}

// VariantKeyOf is the key VariantKey would give a tree of this repository
// holding files, by slash path from the library's folder: a working
// copy's, so that a variant whose files it holds as this tree does need
// not be rendered to tell. Each file's id is git's hash of its bytes, in
// the repository's object format. others are the paths of the folder
// that files leaves out (links, which a load follows and a tree's
// listing does not, and files too large to read): where the variant
// reads one, there is no key, "".
func (t *Tree) VariantKeyOf(files map[string][]byte, others []string, name string) string {
	keep := variantFiles(name)
	if len(t.blobs) == 0 || slices.ContainsFunc(others, keep) {
		return ""
	}
	objectHash := sha1.New
	if len(t.blobs[0].id) == 2*sha256.Size {
		objectHash = sha256.New
	}
	var blobs []blob
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if keep(p) {
			h := objectHash()
			fmt.Fprintf(h, "blob %d\x00", len(files[p]))
			h.Write(files[p])
			blobs = append(blobs, blob{path: p, id: hex.EncodeToString(h.Sum(nil))})
		}
	}
	return (&Tree{blobs: blobs}).key(keep)
}

// variantFiles accepts the paths of what a variant renders with: its
// folder and every schema.
func variantFiles(name string) func(string) bool {
	dir := "templates/" + name + "/"
	return func(p string) bool { return strings.HasPrefix(p, dir) || strings.HasPrefix(p, "schemas/") }
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

// maxLibraryFiles bounds the files of one library's tree: listing and
// reading a commit that holds more (a label's ref can be pushed by anyone
// who can push) would cost memory and time for no library an author
// writes.
const maxLibraryFiles = 20000

// list reads the files of the library in commit into t, streaming git
// ls-tree's listing and stopping at maxLibraryFiles files or
// maxLibraryBytes of them, before any is read.
func (r *Repo) list(ctx context.Context, commit string, t *Tree) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a refusal kills git
	cmd := r.git.Command(ctx, "--literal-pathspecs", "ls-tree", "-r", "-z", "-l", "--full-tree", commit,
		"--", r.prefix+"templates", r.prefix+"schemas")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	listErr := t.readListing(bufio.NewReader(stdout), r.prefix)
	if listErr != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	if listErr != nil {
		return &engine.Error{Kind: engine.KindUsage, Path: r.dir,
			Reason: fmt.Sprintf("the library of %s (%s) is refused: %v", t.Ref, short(commit), listErr),
			Hints:  []string{"a library holds tens of files; check what the commit adds under templates/ and schemas/"}}
	}
	if waitErr != nil {
		return &engine.Error{Kind: engine.KindInternal, Path: r.dir,
			Reason: fmt.Sprintf("cannot list the tree of %s (%s): %v: %s", t.Ref, commit, waitErr, strings.TrimSpace(stderr.String())), Err: waitErr}
	}
	return nil
}

// readListing reads ls-tree -r -z -l's records, "<mode> SP <type> SP
// <object> SP+ <size> TAB <path>" each, keeping the regular files under
// prefix, within maxLibraryFiles files and maxLibraryBytes bytes.
func (t *Tree) readListing(out *bufio.Reader, prefix string) error {
	total := 0
	for {
		rec, err := out.ReadString(0)
		if err == io.EOF && rec == "" {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		meta, name, ok := strings.Cut(strings.TrimSuffix(rec, "\x00"), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || fields[1] != "blob" || fields[0] == "120000" {
			continue // a submodule (commit), a symbolic link
		}
		rel, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		size, serr := strconv.Atoi(fields[3])
		if serr != nil || size < 0 {
			return fmt.Errorf("git ls-tree gave %q as the size of %s", fields[3], name)
		}
		if len(t.blobs) == maxLibraryFiles {
			return fmt.Errorf("it holds more than %d files under templates/ and schemas/", maxLibraryFiles)
		}
		if total += size; total > maxLibraryBytes {
			return fmt.Errorf("its files under templates/ and schemas/ hold more than %d bytes", maxLibraryBytes)
		}
		t.blobs = append(t.blobs, blob{path: rel, id: fields[2], size: int64(size)})
	}
}

// short is a commit's hash as git log --oneline shows it.
func short(commit string) string { return commit[:min(len(commit), 12)] }
