package golden_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// removeNote removes the variant note from a copy of the module's test
// library (memo and note), as an author deletes a variant, and returns the
// copy, the library loaded from it and its golden files' folder.
func removeNote(t *testing.T) (string, *engine.Library, string) {
	t.Helper()
	dir := fixture.SmallCopy(t)
	for _, p := range []string{"templates/note", "schemas/note.schema.json"} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, fixture.LoadDir(t, dir), filepath.Join(dir, "testdata", "golden")
}

// lines are the outcomes that are not Same, as their status and file
// (relative to dir, slashed), and whether each is of a folder of no variant.
func lines(dir string, outcomes []golden.Outcome) []string {
	var out []string
	for _, o := range outcomes {
		if o.Status == golden.Same {
			continue
		}
		rel, _ := filepath.Rel(dir, o.File)
		line := string(o.Status) + " " + filepath.ToSlash(rel)
		if o.Orphan {
			line += " orphan"
		}
		if o.Dir != "" {
			line += " dir"
		}
		out = append(out, line)
	}
	return out
}

func wantLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestRemovedVariant: the golden files of a variant removed from the
// library, its folder testdata/golden/<name>/ and its types, are stale for
// every comparison of the whole library (All, and Examples and Types as go
// test runs them), named by Orphans, and deleted by an update, the folder
// with them; types/ is the types' folder, never a variant's. A comparison
// of named variants leaves them alone.
func TestRemovedVariant(t *testing.T) {
	t.Parallel()
	_, lib, dir := removeNote(t)
	ctx := context.Background()
	stale := []string{"stale note/basic.md orphan", "stale note/tagged.md orphan", "stale types/note.py", "stale types/note.ts"}
	out, err := golden.All(ctx, lib, dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "All", lines(dir, out), stale)
	for _, o := range out {
		if o.Status == golden.Stale && o.Orphan {
			if want := "FAIL " + o.File + ": no variant note produces it (render test --update deletes it)"; o.String() != want {
				t.Errorf("%q, want %q", o.String(), want)
			}
		}
	}
	wantLines(t, "Orphans", lines(dir, golden.Orphans(lib, dir)), stale)
	ex, err := golden.Examples(ctx, lib, dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "Examples", lines(dir, ex), stale[:2])
	wantLines(t, "Types", lines(dir, golden.Types(lib, filepath.Join(dir, golden.TypesDir), nil, false)), stale[2:])

	named, err := golden.All(ctx, lib, dir, []string{"memo"}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "All of memo, updating", lines(dir, named), nil)

	out, err = golden.All(ctx, lib, dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "All, updating", lines(dir, out), []string{"removed note/basic.md orphan", "removed note/tagged.md orphan dir", "removed types/note.py", "removed types/note.ts"})
	for _, o := range out {
		if o.Dir != "" && !strings.HasSuffix(o.String(), ", and the folder "+filepath.Join(dir, "note")+" of no variant, empty now") {
			t.Errorf("the last file of the folder: %q", o.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "note")); !os.IsNotExist(err) {
		t.Errorf("the folder of the removed variant is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, golden.TypesDir, "memo.ts")); err != nil {
		t.Errorf("the types of memo went with note's: %v", err)
	}
	out, err = golden.All(ctx, lib, dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "All after the update", lines(dir, out), nil)
}

// TestRemovedVariantKeepsOtherFiles: an update deletes the golden files
// (*.md) of a folder of no variant, and leaves anything else there, and
// so the folder.
func TestRemovedVariantKeepsOtherFiles(t *testing.T) {
	t.Parallel()
	_, lib, dir := removeNote(t)
	notes := filepath.Join(dir, "note", "NOTES.txt")
	if err := os.WriteFile(notes, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := golden.Examples(context.Background(), lib, dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "Examples, updating", lines(dir, out), []string{"removed note/basic.md orphan", "removed note/tagged.md orphan"})
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("a file that is no golden file went: %v", err)
	}
}

// TestBrokenVariantKeepsItsGoldenFiles: a variant that is there but does
// not load is no removed one: its golden files are not compared, the
// outcome says so, and an update leaves every one of them.
func TestBrokenVariantKeepsItsGoldenFiles(t *testing.T) {
	t.Parallel()
	dir := fixture.SmallCopy(t)
	manifest := filepath.Join(dir, "templates", "note", "prompt.yaml")
	if err := os.WriteFile(manifest, []byte("sections: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := fixture.LoadDir(t, dir)
	goldenDir := filepath.Join(dir, "testdata", "golden")
	files := []string{"note/basic.md", "note/tagged.md", "types/note.ts", "types/note.py"}
	if o := golden.Orphans(lib, goldenDir); len(o) != 0 {
		t.Errorf("orphans of a broken variant: %v", lines(goldenDir, o))
	}
	out, err := golden.All(context.Background(), lib, goldenDir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, o := range out {
		switch o.Status {
		case golden.Same:
		case golden.Failed:
			failed++
			if o.Variant != "note" || !strings.Contains(o.String(), "FAIL note: the variant does not load, so its golden files were not compared (render test --update leaves them as they are): ") {
				t.Errorf("the broken variant: %q", o.String())
			}
		default:
			t.Errorf("%s %s", o.Status, o.File)
		}
	}
	if failed != 1 {
		t.Errorf("%d failed outcomes, want the broken variant's", failed)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(goldenDir, filepath.FromSlash(f))); err != nil {
			t.Errorf("an update deleted %s of a variant that does not load: %v", f, err)
		}
	}
}
