package variants_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// FuzzVariants feeds arbitrary bytes to every variant of the embedded
// library and to extraction. Whatever the bytes, a render ends within its
// deadline with a result or a structured error that blames the input (or a
// check the input broke), never a template, the program or a panic; and it
// allocates no more than a bound proportional to the input. go test runs
// the seeds (every example of every variant, and the hostile inputs of the
// reliability suite); go test -fuzz FuzzVariants explores.
func FuzzVariants(f *testing.F) {
	lib := fixture.Library(f)
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		for _, ex := range v.Examples() {
			in, _ := v.Example(ex)
			f.Add(in.Data)
		}
	}
	for _, seed := range []string{
		`{"x": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "}",
		"session_seq: 9223372036854775808\n", `{"session_seq": 1e19}`, "a: 1\n---\nb: 2\n",
		`{"parent": {"prompt": "a\u0000b"}}`, "{\"parent\": {\"prompt\": \"\xff\"}}", "a: &a [*a]\n",
		startMarker + "\n" + startMarker + "\nx\n" + endMarker + "\n" + endMarker + "\n", "", "{", "[1]", "\ufeff{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, name := range lib.Names() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			res, err := lib.Render(ctx, name, engine.Input{Name: "fuzz", Data: data})
			cancel()
			if err == nil {
				if res == nil || res.Text == "" {
					t.Fatalf("%s: no error and no prompt", name)
				}
				continue
			}
			var e *engine.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: an error of no kind: %v", name, err)
			}
			switch e.Kind {
			case engine.KindInput, engine.KindCheck:
			default:
				t.Fatalf("%s: %q blamed on %s: %v", name, data, e.Kind, err)
			}
			if e.Kind == engine.KindInput && e.Reason == "" {
				t.Fatalf("%s: an input error without a reason", name)
			}
		}
		text := string(data)
		m := verbatim.Markers{Start: startMarker, End: endMarker}
		levels, lerr := m.Levels(text)
		for depth := 1; depth <= len(levels)+1; depth++ {
			got, err := m.Extract(text, depth)
			switch {
			case err != nil && depth <= len(levels):
				t.Fatalf("level %d of %d: %v", depth, len(levels), err)
			case err == nil && (lerr != nil || depth > len(levels)):
				t.Fatalf("level %d extracted past the chain", depth)
			case err == nil && got != text[levels[depth-1].Start:levels[depth-1].End]:
				t.Fatalf("level %d: Extract and Levels differ", depth)
			}
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if used, bound := after.TotalAlloc-before.TotalAlloc, uint64(256<<20+1000*len(data)); used > bound {
			t.Fatalf("%d bytes of input allocated %d MB", len(data), used>>20)
		}
	})
}
