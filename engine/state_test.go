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
	"time"
)

// TestKeyOrderLivesWithItsLibrary: key order is recorded per render, in the
// copy of the templates it runs, and nothing of it outlives the render. Libraries are loaded and
// dropped, and between them the garbage collector runs so that addresses
// are reused; maps a template builds (dict) always iterate in the documented
// order, sorted, and no render leaves an entry behind.
func TestKeyOrderLivesWithItsLibrary(t *testing.T) {
	t.Parallel()
	for i := range 20 {
		lib := mustLoadNote(t, func(f fstest.MapFS) {
			f["templates/note/prompt.yaml"].Data = bytes.Replace(f["templates/note/prompt.yaml"].Data, []byte("  max_bytes: 400\n"), nil, 1)
			f["templates/note/title.md.tmpl"].Data = []byte("# Note\n{{ range until 200 }}" +
				`{{ keys (dict "type" "string" "description" "d") | join "," }};{{ end }}` +
				"\n{{ range entries .tags }}{{ .key }} {{ end }}\n")
		})
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
		v, _ := lib.Variant("note")
		for _, set := range v.pool.free {
			if n := set.order.Len(); n != 0 {
				t.Fatalf("load %d: %d key orders outlive their render", i, n)
			}
		}
		if len(v.pool.free) == 0 {
			t.Fatal("no copy of the templates came back from the render")
		}
		runtime.GC()
	}
}

// TestLoggingReadsTheOutlineCache: with a logger, the SectionPaths of the
// embedded prompt come from the variant's cache, like section_refs', so a
// parent prompt is parsed once however often it is delegated.
func TestLoggingReadsTheOutlineCache(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	lib, _ := loadNote(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lib.Render(ctx, "note", Input{Name: "in", Data: []byte("title: T\n")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled render: %v", err)
	}
	w := newRunWriter(ctx, 16, 100)
	if _, err := w.Write([]byte("x")); !errors.Is(err, context.Canceled) || len(w.b) != 0 {
		t.Errorf("a template writing after cancel: %v, %q", err, w.b)
	}
	if _, err := w.WriteString("x"); !errors.Is(err, context.Canceled) || len(w.b) != 0 {
		t.Errorf("a verbatim field written after cancel: %v, %q", err, w.b)
	}
	// Past its deadline, a write says so, whichever write it is (a
	// section's, a joiner's, a verbatim field's): the render reports a
	// deadline, with its hint, not a cancel.
	late, stop := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer stop()
	w = newRunWriter(late, 16, 100)
	if _, err := w.WriteString("joiner"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a write past the deadline: %v", err)
	}
}

// TestProvenance: a result names its library and its variant's own files;
// changing one template changes the library's hash and that variant's, and
// no other variant's.
func TestProvenance(t *testing.T) {
	t.Parallel()
	twoVariants := func(change func(fstest.MapFS)) *Library {
		f := noteFS()
		f["templates/other/prompt.yaml"] = &fstest.MapFile{Data: []byte("sections: [main]\nschema: note\n")}
		f["templates/other/main.md.tmpl"] = &fstest.MapFile{Data: []byte("{{ .title }}\n")}
		if change != nil {
			change(f)
		}
		lib, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		return lib
	}
	hashes := func(lib *Library) (string, string, string) {
		note, _ := lib.Variant("note")
		other, _ := lib.Variant("other")
		return lib.Provenance().Library, note.Hash(), other.Hash()
	}
	lib := twoVariants(nil)
	l1, n1, o1 := hashes(lib)
	if l1b, n1b, o1b := hashes(twoVariants(nil)); l1b != l1 || n1b != n1 || o1b != o1 {
		t.Fatal("the same files hash differently")
	}
	l2, n2, o2 := hashes(twoVariants(func(f fstest.MapFS) {
		f["templates/note/items.md.tmpl"].Data = append(f["templates/note/items.md.tmpl"].Data, '\n')
	}))
	if l2 == l1 || n2 == n1 || o2 != o1 {
		t.Errorf("after a template edit: library %v, note %v, other %v changed", l2 != l1, n2 != n1, o2 != o1)
	}
	l3, _, _ := hashes(twoVariants(func(f fstest.MapFS) {
		f["templates/note/examples/more.yaml"] = &fstest.MapFile{Data: []byte("title: More\n")}
	}))
	if l3 != l1 {
		t.Error("an example changed the library hash")
	}
	res, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\n")})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Provenance; p.Library != l1 || p.Short != l1[:12] || p.Variant != n1 || p.Version == "" {
		t.Errorf("result provenance %+v", p)
	}
}

// TestRunawayTemplatesStop: a template that builds a huge list or text,
// writes without end or loops without writing stops at its limit with an
// error naming the limit, and the library goes on rendering.
func TestRunawayTemplatesStop(t *testing.T) {
	t.Parallel()
	// Only the silent loop needs the deadline; the others get one that a
	// loaded machine never reaches, so their own limit is what stops them.
	cases := []struct {
		name, tmpl, want string
		deadline         time.Duration
	}{
		{"a huge list", `{{ range untilStep 0 1000000000 1 }}{{ end }}`, "over the limit of 100000", time.Minute},
		{"a huge repeat", `{{ repeat 100000000000 "x" }}`, "over the output limit", time.Minute},
		{"endless output", `{{ range until 100000 }}{{ range until 100000 }}xxxxxxxxxx{{ end }}{{ end }}`, "wrote more than the output limit", time.Minute},
		{"a silent loop", `{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}`, "longer than its deadline", 100 * time.Millisecond},
		{"a value doubled", `{{ $s := repeat 1000000 "x" }}{{ range until 50000 }}{{ $s = print $s $s }}{{ end }}`, "print would build a text of more than 1048576 bytes", time.Minute},
		{"a large include", `{{ define "x" }}{{ range until 100000 }}xxxxxxxxxxxx{{ end }}{{ end }}{{ $s := include "x" . }}`, "include wrote more than the output limit", time.Minute},
		// Each text within the output limit, each list within the list
		// limit, all of them kept: what they hold together is bounded too.
		{"texts kept in a list", `{{ $l := list }}{{ range until 2000 }}{{ $l = append $l (repeat 100000 "xxxxxxxxxx") }}{{ end }}{{ len $l }}`, "repeat would bring the text this render's functions have built to 5000000 bytes, over the limit of 4194304", time.Minute},
		{"texts kept in an object", `{{ $d := dict }}{{ range $i := until 2000 }}{{ $_ := set $d (print $i) (repeat 100000 "xxxxxxxxxx") }}{{ end }}{{ len $d }}`, "over the limit of 4194304", time.Minute},
		{"numbers kept in a list", `{{ $l := list }}{{ range until 2000 }}{{ $l = append $l (seq 90000) }}{{ end }}`, "over the limit of 4194304", time.Minute},
		{"replacements kept in a list", `{{ $s := repeat 100000 "xxxxxxxxxx" }}{{ $l := list }}{{ range until 400 }}{{ $l = append $l (regexReplaceAll "y" $s "") }}{{ end }}`, "regexReplaceAll would bring", time.Minute},
		{"decoded texts kept in a list", `{{ $s := quote (repeat 100000 "xxxxxxxxxx") }}{{ $l := list }}{{ range until 400 }}{{ $l = append $l (fromJson $s) }}{{ end }}`, "fromJson would bring", time.Minute},
		{"includes kept in a list", `{{ define "x" }}{{ range until 10000 }}xxxxxxxxxx{{ end }}{{ end }}{{ $l := list }}{{ range until 2000 }}{{ $l = append $l (include "x" .) }}{{ end }}`, "over the limit of 4194304", time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := noteFS()
			f["templates/note/items.md.tmpl"].Data = []byte(c.tmpl)
			lib, err := Load(f, WithLimits(Limits{OutputBytes: 1 << 20, Timeout: c.deadline}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\n")})
			if e := AsError(err); e == nil || e.Kind != KindTemplate || !strings.Contains(err.Error(), c.want) || len(e.Hints) == 0 {
				t.Fatalf("got %v, want a template error with %q", err, c.want)
			}
		})
	}
	lib, _ := loadNote(t, nil)
	if _, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\n")}); err != nil {
		t.Errorf("after the limits: %v", err)
	}
}

// TestBrokenVariantLeavesOthersWorking: a variant that does not load is
// kept with its error; the others render, and the strict load refuses.
func TestBrokenVariantLeavesOthersWorking(t *testing.T) {
	t.Parallel()
	f := noteFS()
	f["templates/other/prompt.yaml"] = &fstest.MapFile{Data: []byte("sections: [main]\nschema: note\n")}
	f["templates/other/main.md.tmpl"] = &fstest.MapFile{Data: []byte("{{ if .title }}unclosed\n")}
	f["schemas/bad.schema.json"] = &fstest.MapFile{Data: []byte(`{"type": 5}`)}
	f["templates/third/prompt.yaml"] = &fstest.MapFile{Data: []byte("sections: [main]\nschema: bad\n")}
	f["templates/third/main.md.tmpl"] = &fstest.MapFile{Data: []byte("x\n")}
	lib, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\n")}); err != nil {
		t.Errorf("a good variant beside broken ones: %v", err)
	}
	for name, want := range map[string]string{"other": "templates/other/main.md.tmpl", "third": "schemas/bad.schema.json"} {
		_, err := lib.Render(context.Background(), name, Input{Name: "in", Data: []byte("title: T\n")})
		if e := AsError(err); e == nil || e.Kind != KindTemplate || !strings.Contains(err.Error(), want) {
			t.Errorf("rendering broken %s: %v", name, err)
		}
	}
	if got := strings.Join(lib.Names(), ","); got != "note,other,third" {
		t.Errorf("names %s", got)
	}
	e := AsError(lib.Err())
	if e == nil || len(e.Also) != 1 || e.Variant != "other" || e.Also[0].Variant != "third" {
		t.Errorf("Err: %v", lib.Err())
	}
	if _, err := LoadStrict(f); err == nil {
		t.Error("the strict load accepted a broken library")
	}
}

// TestFallbackKeepsTheLastGoodVersion: after an edit breaks a variant, the
// reloaded library serves its last good version and says it is stale.
func TestFallbackKeepsTheLastGoodVersion(t *testing.T) {
	t.Parallel()
	good, _ := Load(noteFS())
	f := noteFS()
	f["templates/note/items.md.tmpl"].Data = []byte("{{ if .title }}unclosed\n")
	broken, _ := Load(f)
	lib := broken.Fallback(good)
	if _, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte("title: T\n")}); err != nil {
		t.Errorf("the last good version: %v", err)
	}
	if lib.Stale("note") == nil || lib.Err() == nil {
		t.Error("the broken edit is not reported")
	}
	if _, err := broken.Variant("note"); err == nil {
		t.Error("without a fallback the broken variant rendered")
	}
}

// TestLoadMakesTheFirstCopy: a loaded variant holds a copy of its
// templates ready, so that its first render makes none, and that render
// gives it back for the next.
func TestLoadMakesTheFirstCopy(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, nil)
	v, err := lib.Variant("note")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.pool.free) != 1 {
		t.Fatalf("%d copies of the templates ready after load, want 1", len(v.pool.free))
	}
	ready := v.pool.free[0]
	if _, err := lib.Render(context.Background(), "note", Input{Name: "in", Data: []byte(`{"title": "T"}`)}); err != nil {
		t.Fatal(err)
	}
	if len(v.pool.free) != 1 || v.pool.free[0] != ready {
		t.Fatalf("the render did not run the copy made at load: %d ready", len(v.pool.free))
	}
}
