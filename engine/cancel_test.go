package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// TestCallerStopsARender: a caller's cancellation or deadline comes back
// with context.Canceled or DeadlineExceeded in the chain and kind
// cancelled, never as the library's fault; the library's own time limit
// is still the template's.
func TestCallerStopsARender(t *testing.T) {
	t.Parallel()
	lib, err := engine.Load(greeting)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		cause error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"past its deadline", past, context.DeadlineExceeded},
	} {
		_, err := lib.Render(c.ctx, "greeting", engine.Input{Name: "in.json", Data: []byte(`{"name": "Ada"}`)})
		var e *engine.Error
		if !errors.As(err, &e) || e.Kind != engine.KindCancelled || !errors.Is(err, c.cause) {
			t.Errorf("%s: %v (kind %v)", c.name, err, e)
		}
	}
}

// TestStrict: with Strict, Load fails on a library with a variant that
// does not load, as LoadStrict does; without it the broken variant is
// kept for its renders to report.
func TestStrict(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"templates/broken/prompt.yaml": {Data: []byte("schema: greeting\nsections: [intro]\n")},
		"templates/broken/intro.md.tmpl": {Data: []byte("{{ if }}\n")}}
	maps.Copy(fsys, greeting)
	if _, err := engine.Load(fsys); err != nil {
		t.Fatalf("Load without Strict: %v", err)
	}
	_, strict := engine.Load(fsys, engine.Strict())
	_, loadStrict := engine.LoadStrict(fsys)
	if strict == nil || loadStrict == nil || strict.Error() != loadStrict.Error() {
		t.Errorf("Strict: %v; LoadStrict: %v", strict, loadStrict)
	}
}

// TestStages: a stage hook hears each stage of a render in order, with
// its error.
func TestStages(t *testing.T) {
	t.Parallel()
	lib, err := engine.Load(greeting)
	if err != nil {
		t.Fatal(err)
	}
	var heard []string
	hook := func(ctx context.Context, stage string) (context.Context, func(error)) {
		heard = append(heard, stage)
		return ctx, func(err error) { heard = append(heard, "/"+stage) }
	}
	if _, err := lib.Render(context.Background(), "greeting", engine.Input{Name: "in.json", Data: []byte(`{"name": "Ada"}`)}, engine.WithStages(hook)); err != nil {
		t.Fatal(err)
	}
	want := "[decode /decode validate /validate execute /execute checks /checks]"
	if got := fmt.Sprint(heard); got != want {
		t.Errorf("stages %s, want %s", got, want)
	}
}

// TestSchemaNamedByTheManifest: a variant's own schema starts compiling
// with its load, before its manifest is read; when the manifest names
// another, the variant uses that one, and a broken schema of the
// variant's name breaks nothing, on demand or not.
func TestSchemaNamedByTheManifest(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"templates/hello/prompt.yaml":   {Data: []byte("schema: greeting\nsections: [intro]\n")},
		"templates/hello/intro.md.tmpl": {Data: []byte("Hello {{ .name }}.\n")},
		"schemas/hello.schema.json":     {Data: []byte("{ not a schema")},
	}
	maps.Copy(fsys, greeting)
	for _, opts := range [][]engine.Option{nil, {engine.OnDemand()}} {
		lib, err := engine.Load(fsys, opts...)
		if err != nil {
			t.Fatal(err)
		}
		v, err := lib.Variant("hello")
		if err != nil {
			t.Fatalf("on demand %v: %v", len(opts) > 0, err)
		}
		res, err := v.Render(context.Background(), engine.Input{Name: "in.json", Data: []byte(`{"name": "Ada"}`)}, engine.WithoutLibraryHash())
		if err != nil {
			t.Fatalf("on demand %v: %v", len(opts) > 0, err)
		}
		if res.Text != "Hello Ada.\n" {
			t.Errorf("on demand %v: %q", len(opts) > 0, res.Text)
		}
	}
}
