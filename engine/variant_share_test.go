package engine

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// twoVariantFS is the note library with a second variant, memo, and a
// schema no variant names.
func twoVariantFS() fstest.MapFS {
	fsys := noteFS()
	fsys["schemas/memo.schema.json"] = &fstest.MapFile{Data: []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "required": ["to"], "properties": {"to": {"type": "string", "description": "Who reads it."}}}`)}
	fsys["schemas/unused.schema.json"] = &fstest.MapFile{Data: []byte(`{"type": "object"}`)}
	fsys["templates/memo/prompt.yaml"] = &fstest.MapFile{Data: []byte("description: A memo\nsections: [body]\n")}
	fsys["templates/memo/body.md.tmpl"] = &fstest.MapFile{Data: []byte("To {{ .to }}\n")}
	fsys["templates/memo/examples/basic.yaml"] = &fstest.MapFile{Data: []byte("to: Ann\n")}
	return fsys
}

// loadShared loads fsys in full with the share and opts.
func loadShared(t *testing.T, fsys fstest.MapFS, s *VariantShare, opts ...Option) *Library {
	t.Helper()
	lib, err := LoadStrict(fsys, append([]Option{ShareVariants(s)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// variantOf is the named variant of lib, loaded.
func variantOf(t *testing.T, lib *Library, name string) *Variant {
	t.Helper()
	v, err := lib.Variant(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// renderExample renders the variant's basic example.
func renderExample(t *testing.T, v *Variant) *Result {
	t.Helper()
	in, err := v.Example("basic")
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Render(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestEqualVariantsLoadOnce: two libraries that differ in one variant
// share the other's files, and each renders with its own provenance.
func TestEqualVariantsLoadOnce(t *testing.T) {
	t.Parallel()
	var s VariantShare
	a := loadShared(t, twoVariantFS(), &s)
	changed := twoVariantFS()
	changed["templates/memo/body.md.tmpl"] = &fstest.MapFile{Data: []byte("Dear {{ .to }}\n")}
	b := loadShared(t, changed, &s)

	noteA, noteB := variantOf(t, a, "note"), variantOf(t, b, "note")
	if noteA.variantFiles != noteB.variantFiles {
		t.Error("note, equal in both libraries, was loaded twice")
	}
	if noteA == noteB || noteA.rules == noteB.rules {
		t.Error("the libraries share a Variant, not only its files")
	}
	memoA, memoB := variantOf(t, a, "memo"), variantOf(t, b, "memo")
	if memoA.variantFiles == memoB.variantFiles {
		t.Error("memo, changed, was shared")
	}
	if s.Parsed() != 3 || s.Len() != 3 {
		t.Errorf("two libraries of two variants, one changed: %d parsed, %d held, want 3 and 3", s.Parsed(), s.Len())
	}

	ra, rb := renderExample(t, noteA), renderExample(t, noteB)
	if ra.Provenance.Library != a.Provenance().Library || rb.Provenance.Library != b.Provenance().Library ||
		ra.Provenance.Library == rb.Provenance.Library {
		t.Errorf("a shared variant's provenance: %s and %s, want %s and %s",
			ra.Provenance.Library, rb.Provenance.Library, a.Provenance().Library, b.Provenance().Library)
	}
	if ra.Text != rb.Text || ra.Provenance.Variant != rb.Provenance.Variant {
		t.Errorf("the shared variant renders differently: %q, %q", ra.Text, rb.Text)
	}
	if got := renderExample(t, memoB).Text; got != "Dear Ann\n" {
		t.Errorf("the changed variant renders %q", got)
	}
}

// TestSharedVariantsKeepTheirLibrarysOptions: limits and the logger are
// the serving library's, whoever loaded the files.
func TestSharedVariantsKeepTheirLibrarysOptions(t *testing.T) {
	t.Parallel()
	var s VariantShare
	var logA, logB bytes.Buffer
	a := loadShared(t, twoVariantFS(), &s, WithLogger(slog.New(slog.NewTextHandler(&logA, nil))))
	b := loadShared(t, twoVariantFS(), &s, WithLogger(slog.New(slog.NewTextHandler(&logB, nil))),
		WithLimits(Limits{OutputBytes: 8}))
	if s.Parsed() != 2 {
		t.Fatalf("two equal libraries: %d variants parsed, want 2", s.Parsed())
	}
	renderExample(t, variantOf(t, a, "note"))
	if !strings.Contains(logA.String(), "prompt rendered") || logB.Len() != 0 {
		t.Errorf("a render of the first library logged %q to it and %q to the second", logA.String(), logB.String())
	}
	v := variantOf(t, b, "note")
	in, _ := v.Example("basic")
	if _, err := v.Render(context.Background(), in); err == nil || !strings.Contains(err.Error(), "output limit") {
		t.Errorf("the second library's output limit: %v", err)
	}
	if !strings.Contains(logB.String(), "render failed") {
		t.Errorf("the second library logged %q", logB.String())
	}
}

// TestVariantKeyReadsEverySchemaAndTheOrigin: a change to a schema no
// variant names, or another origin, loads the variants again; an
// example's name is the origin's.
func TestVariantKeyReadsEverySchemaAndTheOrigin(t *testing.T) {
	t.Parallel()
	var s VariantShare
	a := loadShared(t, twoVariantFS(), &s)
	changed := twoVariantFS()
	changed["schemas/unused.schema.json"] = &fstest.MapFile{Data: []byte(`{"type": "object", "description": "now said"}`)}
	b := loadShared(t, changed, &s)
	added := twoVariantFS()
	added["schemas/more.schema.json"] = &fstest.MapFile{Data: []byte(`{"type": "object"}`)}
	c := loadShared(t, added, &s)
	o := loadShared(t, twoVariantFS(), &s, WithOrigin("lib"))
	note := variantOf(t, a, "note").variantFiles
	for _, lib := range []*Library{b, c, o} {
		if variantOf(t, lib, "note").variantFiles == note {
			t.Errorf("library %s shares note with one of other schemas or origin", lib.Provenance().Short)
		}
	}
	if s.Parsed() != 8 {
		t.Errorf("four libraries of different keys: %d variants parsed, want 8", s.Parsed())
	}
	in, _ := variantOf(t, o, "note").Example("basic")
	if in.Name != "lib/templates/note/examples/basic.yaml" {
		t.Errorf("an example of the library at origin lib is named %q", in.Name)
	}
	if in, _ := variantOf(t, a, "note").Example("basic"); in.Name != "templates/note/examples/basic.yaml" {
		t.Errorf("an example of the library without origin is named %q", in.Name)
	}
}

// TestRetainDropsWhatNoLibraryUses: the share holds the variants of the
// libraries retained, and loads again what it dropped.
func TestRetainDropsWhatNoLibraryUses(t *testing.T) {
	t.Parallel()
	var s VariantShare
	loadShared(t, twoVariantFS(), &s)
	changed := twoVariantFS()
	changed["templates/memo/body.md.tmpl"] = &fstest.MapFile{Data: []byte("Dear {{ .to }}\n")}
	b := loadShared(t, changed, &s)
	s.Retain(b)
	if s.Len() != 2 {
		t.Errorf("retaining one library of two variants: %d held", s.Len())
	}
	loadShared(t, twoVariantFS(), &s) // its memo was dropped, its note is b's
	if s.Parsed() != 4 {
		t.Errorf("after retaining: %d variants parsed, want 4", s.Parsed())
	}
	s.Retain()
	if s.Len() != 0 {
		t.Errorf("retaining no library: %d held", s.Len())
	}
}

// TestBrokenVariantsAreNotShared: each library that asks for a variant
// that does not load loads it, for its own error.
func TestBrokenVariantsAreNotShared(t *testing.T) {
	t.Parallel()
	var s VariantShare
	broken := twoVariantFS()
	broken["templates/memo/body.md.tmpl"] = &fstest.MapFile{Data: []byte("To {{ .to \n")}
	for range 2 {
		lib, err := Load(broken, ShareVariants(&s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lib.Variant("memo"); err == nil || !strings.Contains(err.Error(), "templates/memo/body.md.tmpl") {
			t.Errorf("the broken variant: %v", err)
		}
	}
	if s.Parsed() != 2 || s.Len() != 0 {
		t.Errorf("a broken variant asked for twice: %d parsed, %d held, want 2 and 0", s.Parsed(), s.Len())
	}
}

// TestConcurrentLoadsShare: libraries of equal files loaded at once load
// each variant once and render alike (run with -race).
func TestConcurrentLoadsShare(t *testing.T) {
	t.Parallel()
	var s VariantShare
	const n = 8
	libs := make([]*Library, n)
	texts := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			lib, err := LoadStrict(twoVariantFS(), ShareVariants(&s))
			if err != nil {
				t.Error(err)
				return
			}
			v, _ := lib.Variant("note")
			in, _ := v.Example("basic")
			res, err := v.Render(context.Background(), in)
			if err != nil {
				t.Error(err)
				return
			}
			libs[i], texts[i] = lib, res.Text
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	first := variantOf(t, libs[0], "note").variantFiles
	for i, lib := range libs {
		if variantOf(t, lib, "note").variantFiles != first || texts[i] != texts[0] {
			t.Errorf("library %d of %d loaded at once: own files %t, text %q", i, n, variantOf(t, lib, "note").variantFiles != first, texts[i])
		}
	}
	if s.Parsed() != 2 {
		t.Errorf("%d equal libraries of two variants loaded at once: %d parsed, want 2", n, s.Parsed())
	}
	s.Retain(libs...)
	if s.Len() != 2 {
		t.Errorf("retaining them all: %d held", s.Len())
	}
}
