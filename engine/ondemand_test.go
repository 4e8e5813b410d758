package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A library loaded on demand reads the variant it renders and its schema:
// another variant's files and schema stay unread, even one over the size limit, until
// the library's hash or every variant is asked for, which then reports it
// as LoadDir does at once.
func TestOnDemandReadsTheVariantItRenders(t *testing.T) {
	t.Parallel()
	dir := smallCopy(t)
	big := filepath.Join(dir, "templates", "note", "big.md.tmpl")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(dir); err == nil || !strings.Contains(err.Error(), "big.md.tmpl") {
		t.Fatalf("LoadDir = %v, want the file over the limit named", err)
	}

	lib, err := LoadDir(dir, OnDemand())
	if err != nil {
		t.Fatal(err)
	}
	v := variantOf(t, lib, "memo")
	in, err := v.Example("basic")
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Render(context.Background(), in, WithoutLibraryHash())
	if err != nil {
		t.Fatalf("rendering memo beside a broken note: %v", err)
	}
	if res.Provenance.Library != "" || res.Provenance.Variant == "" || res.Provenance.Version == "" {
		t.Errorf("provenance without the library's hash = %+v", res.Provenance)
	}
	for name := range lib.fsys.(*folder).read {
		if !strings.HasPrefix(name, "templates/memo/") && name != "schemas/memo.schema.json" {
			t.Errorf("rendering memo read %s", name)
		}
	}

	if _, err := v.Render(context.Background(), in); err == nil || !strings.Contains(err.Error(), "big.md.tmpl") {
		t.Errorf("a render that gives the library's hash = %v, want the file over the limit named", err)
	}
	if _, err := lib.Variant("note"); err == nil || !strings.Contains(err.Error(), "big.md.tmpl") {
		t.Errorf("Variant(note) = %v, want the file over the limit named", err)
	}
	if err := lib.Err(); err == nil || !strings.Contains(err.Error(), "big.md.tmpl") {
		t.Errorf("Err = %v, want the file over the limit named", err)
	}
	if p := lib.Provenance(); p.Library != "" {
		t.Errorf("the hash of a library that cannot be read = %q", p.Library)
	}
}

// On demand or not, a library has the same provenance and renders the
// same prompts.
func TestOnDemandIsTheSameLibrary(t *testing.T) {
	t.Parallel()
	dir := smallCopy(t)
	eager, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := LoadDir(dir, OnDemand())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eager.Names(), lazy.Names()) {
		t.Fatalf("variants %v on demand, %v at once", lazy.Names(), eager.Names())
	}
	for _, name := range eager.Names() {
		ve, vl := variantOf(t, eager, name), variantOf(t, lazy, name)
		for _, ex := range ve.Examples() {
			in, _ := ve.Example(ex)
			a, err := ve.Render(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := vl.Render(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != b.Text || a.Provenance != b.Provenance {
				t.Errorf("%s/%s: on demand %+v, at once %+v", name, ex, b.Provenance, a.Provenance)
			}
		}
	}
	if eager.Provenance() != lazy.Provenance() || lazy.Err() != nil {
		t.Errorf("provenance on demand %+v, at once %+v (err %v)", lazy.Provenance(), eager.Provenance(), lazy.Err())
	}
}

// smallCopy is a working copy of the module's test library
// (internal/testing/fixture, which imports this package).
func smallCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../internal/testing/fixture/library")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A link to a folder under templates/ is no variant, read on demand or at
// once: the library's hash never covers its files, so it must not serve
// them either.
func TestALinkedFolderIsNoVariant(t *testing.T) {
	t.Parallel()
	dir := smallCopy(t)
	if err := os.CopyFS(filepath.Join(dir, "extra", "memo2"), os.DirFS(filepath.Join(dir, "templates", "memo"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "extra", "memo2"), filepath.Join(dir, "templates", "memo2")); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]Option{nil, {OnDemand()}} {
		lib, err := LoadDir(dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if names := lib.Names(); slices.Contains(names, "memo2") || !slices.Contains(names, "memo") {
			t.Errorf("on demand %v: variants %v", len(opts) > 0, names)
		}
		if _, err := lib.Variant("memo2"); err == nil {
			t.Errorf("on demand %v: the linked folder is served", len(opts) > 0)
		}
	}
}

// A limit as large as an int reads files whole: one byte past it is no
// number a reader can hold.
func TestTheLargestFileLimit(t *testing.T) {
	t.Parallel()
	lib, err := LoadDir(smallCopy(t), OnDemand(), WithLimits(Limits{FileBytes: math.MaxInt, LibraryBytes: math.MaxInt}))
	if err != nil {
		t.Fatal(err)
	}
	v, err := lib.Variant("memo")
	if err != nil {
		t.Fatalf("memo with the largest file limit: %v", err)
	}
	in, _ := v.Example("basic")
	if _, err := v.Render(context.Background(), in, WithoutLibraryHash()); err != nil {
		t.Fatal(err)
	}
}

// A library read on demand opens a file from its folder's own root, but
// follows a link to a file in another folder of the library as LoadDir
// does, and refuses one that leaves the library.
func TestOnDemandFollowsLinksInsideTheLibrary(t *testing.T) {
	t.Parallel()
	dir := smallCopy(t)
	memo := filepath.Join(dir, "templates", "memo")
	for _, move := range [][2]string{
		{filepath.Join(memo, "examples", "basic.yaml"), filepath.Join(dir, "shared", "basic.yaml")},
		{filepath.Join(memo, "head.md.tmpl"), filepath.Join(dir, "shared", "head.md.tmpl")},
	} {
		if err := os.MkdirAll(filepath.Dir(move[1]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(move[0], move[1]); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Dir(move[0]), move[1])
		if err := os.Symlink(rel, move[0]); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	renders := map[bool]string{}
	for _, lazy := range []bool{false, true} {
		var opts []Option
		if lazy {
			opts = append(opts, OnDemand())
		}
		lib, err := LoadDir(dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		v := variantOf(t, lib, "memo")
		in, err := v.Example("basic")
		if err != nil {
			t.Fatalf("on demand %v: %v", lazy, err)
		}
		res, err := v.Render(context.Background(), in, WithoutLibraryHash())
		if err != nil {
			t.Fatalf("on demand %v: %v", lazy, err)
		}
		renders[lazy] = res.Text
	}
	if renders[true] == "" || renders[true] != renders[false] {
		t.Errorf("through links: on demand %q, at once %q", renders[true], renders[false])
	}

	outside := filepath.Join(t.TempDir(), "secret.md.tmpl")
	if err := os.WriteFile(outside, []byte("a secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "templates", "note", "leak.md.tmpl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	lib, err := LoadDir(dir, OnDemand())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Variant("note"); err == nil {
		t.Error("on demand: a template linked out of the library is read")
	}
}

// A library read on demand lists each folder once: a file that appears
// after its folder was listed is not half seen (its size unchecked, but
// its text parsed).
func TestOnDemandListsAFolderOnce(t *testing.T) {
	t.Parallel()
	dir := smallCopy(t)
	lib, err := LoadDir(dir, OnDemand())
	if err != nil {
		t.Fatal(err)
	}
	f := lib.fsys.(*folder)
	before, err := f.ReadDir("templates/memo")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "templates", "memo", "late.md.tmpl"), []byte("late"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := f.ReadDir("templates/memo")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("templates/memo listed %d entries, then %d", len(before), len(after))
	}
	after[0] = nil // the caller's copy
	if again, _ := f.ReadDir("templates/memo"); again[0] == nil {
		t.Error("ReadDir handed out the folder's own list")
	}
}
