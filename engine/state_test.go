package engine

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// TestKeyOrderLivesWithItsLibrary: key order is recorded per library and
// per render, and nothing of it outlives them. Libraries are loaded and
// dropped, and between them the garbage collector runs so that addresses
// are reused; maps a template builds (dict) always iterate in the documented
// order, sorted, and no render leaves an entry behind.
func TestKeyOrderLivesWithItsLibrary(t *testing.T) {
	for i := range 20 {
		lib, err := loadNote(t, func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = bytes.Replace(f["templates/note/prompt.yaml"].Data, []byte("  max_bytes: 400\n"), nil, 1)
			f["templates/note/title.md.tmpl"].Data = []byte("# Note\n{{ range until 200 }}" +
				`{{ keys (dict "type" "string" "description" "d") | join "," }};{{ end }}` +
				"\n{{ range entries .tags }}{{ .key }} {{ end }}\n")
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte(`{"title": "T", "tags": {"z": "1", "a": "2"}}`)})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(res.Text, "description,type;"); got != 200 {
			t.Fatalf("load %d: %d of 200 template maps in sorted order:\n%s", i, got, res.Text)
		}
		if !strings.Contains(res.Text, "z a \n") {
			t.Fatalf("load %d: input order lost: %q", i, res.Text)
		}
		if n := lib.order.Len(); n != 0 {
			t.Fatalf("load %d: %d key orders outlive their render", i, n)
		}
		runtime.GC()
	}
}

// TestLoggingReadsTheOutlineCache: with a logger, the SectionPaths of the
// embedded prompt come from the variant's cache, like section_refs', so a
// parent prompt is parsed once however often it is delegated.
func TestLoggingReadsTheOutlineCache(t *testing.T) {
	var logs bytes.Buffer
	lib, err := Load(noteFS(), WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := lib.Variant("note")
	for range 3 {
		if _, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\nbody: \"# Head\"\n")}); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.sectionPaths.Len(); n != 1 {
		t.Errorf("the cache holds %d outlines, want the one embedded prompt", n)
	}
	if !strings.Contains(logs.String(), `"inherited":["Note > Head"]`) {
		t.Errorf("logs: %s", logs.String())
	}
}

// TestForeignErrorsAreInternal: an error no stage made is the program's own
// fault, never the caller's usage.
func TestForeignErrorsAreInternal(t *testing.T) {
	e := AsError(errors.New("disk full"))
	if e.Kind != KindInternal {
		t.Errorf("kind %s", e.Kind)
	}
	inner := &Error{Kind: KindInput, Field: "/b", Reason: "second"}
	outer := &Error{Kind: KindInput, Field: "/a", Reason: "first", Also: []*Error{inner}, Err: ErrUnknownVariant}
	var got *Error
	if !errors.Is(outer, ErrUnknownVariant) || !errors.Is(outer, inner) || !errors.As(outer, &got) {
		t.Error("Also and Err are not reachable with errors.Is and errors.As")
	}
}

// TestRenderHonoursItsContext: a render its caller gave up on stops, at the
// next stage or at the next write of a template.
func TestRenderHonoursItsContext(t *testing.T) {
	lib, _ := loadNote(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lib.Render(ctx, "note", Input{Name: "in", Data: []byte("title: T\n")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled render: %v", err)
	}
	var buf bytes.Buffer
	w := &contextWriter{buf: &buf, done: ctx.Done()}
	if _, err := w.Write([]byte("x")); !errors.Is(err, context.Canceled) || buf.Len() != 0 {
		t.Errorf("a template writing after cancel: %v, %q", err, buf.String())
	}
}
