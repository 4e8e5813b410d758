package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// hostileFS is the library of one variant, hostile, of the schema and the
// one section's template body given.
func hostileFS(schema, body string) fstest.MapFS {
	return fstest.MapFS{
		"schemas/hostile.schema.json":    {Data: []byte(schema)},
		"templates/hostile/prompt.yaml":  {Data: []byte("schema: hostile\nsections: [body]\n")},
		"templates/hostile/body.md.tmpl": {Data: []byte(body)},
	}
}

// hostile is a library whose one variant, "hostile", renders the template
// body as its one section, under a short time limit.
func hostile(t testing.TB, body string, limits engine.Limits) *engine.Library {
	t.Helper()
	fsys := hostileFS(`{"type": "object"}`, body)
	if limits.Timeout == 0 {
		// A test that is not about the deadline must not meet it on a
		// loaded machine (under -race, the 60,000 iterations of
		// TestRangesMeanWhatTheyMeant took more than 2 s).
		limits.Timeout = 2 * time.Minute
	}
	lib, err := engine.Load(fsys, engine.WithLimits(limits))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func renderHostile(t testing.TB, lib *engine.Library) error {
	t.Helper()
	_, err := lib.Render(context.Background(), "hostile", engine.Input{Name: "in.json", Data: []byte(`{}`)})
	return err
}

// renderFails renders lib's hostile variant, which must fail; the error
// is logged for a person to read what it says.
func renderFails(t *testing.T, lib *engine.Library) {
	t.Helper()
	err := renderHostile(t, lib)
	t.Log(err)
	if err == nil {
		t.Fatal("no error")
	}
}

// TestRecursionThroughTemplateAndInclude: a define that calls itself
// through template and include in turn ends in the render's error naming
// the template, not in a stack overflow that ends the process.
func TestRecursionThroughTemplateAndInclude(t *testing.T) {
	t.Parallel()
	lib := hostile(t, `{{ define "a" }}{{ template "b" . }}{{ end }}{{ define "b" }}{{ include "a" . }}{{ end }}{{ template "a" . }}`, engine.Limits{})
	renderFails(t, lib)
}

// TestRecursionDeep: a template that calls itself 90,000 times deep, and
// then includes itself again, ends in the render's error.
func TestRecursionDeep(t *testing.T) {
	t.Parallel()
	lib := hostile(t, `{{ define "a" }}{{ if lt . 90000 }}{{ template "a" (add . 1) }}{{ else }}{{ include "a" 0 }}{{ end }}{{ end }}{{ template "a" 0 }}`, engine.Limits{Timeout: 60 * time.Second})
	renderFails(t, lib)
}

// TestRecursionFromDeepBlocks: a template that calls itself from inside
// many nested blocks holds more stack per call than text/template's count
// of calls sees; the frames bound ends it with the same error.
func TestRecursionFromDeepBlocks(t *testing.T) {
	t.Parallel()
	for _, k := range []int{90, 1000, 20000} {
		body := `{{ define "a" }}` + strings.Repeat("{{ with . }}", k) + `{{ template "a" . }}` + strings.Repeat("{{ end }}", k) + `{{ end }}{{ template "a" 1 }}`
		err := renderHostile(t, hostile(t, body, engine.Limits{}))
		var e *engine.Error
		if !errors.As(err, &e) || e.Kind != engine.KindTemplate || !strings.Contains(e.Reason, `template "a"`) || !strings.Contains(e.Reason, "too deeply") {
			t.Errorf("%d blocks: %v", k, err)
		}
	}
}

// TestRecursionFromDeepPipelines: so does an include deep in parenthesized
// pipelines.
func TestRecursionFromDeepPipelines(t *testing.T) {
	t.Parallel()
	k := 5000
	body := `{{ define "a" }}{{ ` + strings.Repeat("print (", k) + `include "a" .` + strings.Repeat(")", k) + ` }}{{ end }}{{ template "a" 1 }}`
	err := renderHostile(t, hostile(t, body, engine.Limits{}))
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindTemplate || !strings.Contains(e.Reason, `too deeply`) {
		t.Errorf("%v", err)
	}
}

// TestNestedRangeStopsAtTheDeadline: a range whose body calls nothing
// still sees the render's deadline, and the render ends with the
// template's time limit error.
func TestNestedRangeStopsAtTheDeadline(t *testing.T) {
	t.Parallel()
	lib := hostile(t, `{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}`, engine.Limits{Timeout: 100 * time.Millisecond})
	err := renderHostile(t, lib)
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindTemplate || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
}

// TestLibrarySizeLimits: a template over Limits.FileBytes, or a library
// over Limits.LibraryBytes, is refused at load, naming the file, before
// anything is parsed.
func TestLibrarySizeLimits(t *testing.T) {
	t.Parallel()
	fsys := hostileFS(`{"type": "object"}`, strings.Repeat("{{ if . }}x{{ end }}", 4000))
	for _, c := range []struct {
		limits engine.Limits
		says   string
	}{
		{engine.Limits{FileBytes: 64 << 10}, "a library file may hold"},
		{engine.Limits{LibraryBytes: 64 << 10}, "the most a library may hold"},
	} {
		_, err := engine.Load(fsys, engine.WithLimits(c.limits))
		var e *engine.Error
		if !errors.As(err, &e) || e.Kind != engine.KindTemplate || e.Position != "templates/hostile/body.md.tmpl" || !strings.Contains(e.Reason, c.says) {
			t.Errorf("%+v: %v", c.limits, err)
		}
	}
	if _, err := engine.Load(fsys); err != nil {
		t.Errorf("within the default limits: %v", err)
	}
}

// TestLibraryFileCount: a library of tens of thousands of tiny partials,
// under the byte limits, is refused at load naming a file past the count
// (each file costs kilobytes of memory to load however small).
func TestLibraryFileCount(t *testing.T) {
	t.Parallel()
	fsys := hostileFS(`{"type": "object"}`, "x")
	for i := range 20001 {
		fsys[fmt.Sprintf("templates/hostile/_p%d.tmpl", i)] = &fstest.MapFile{Data: []byte("a")}
	}
	_, err := engine.Load(fsys)
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindTemplate || !strings.HasPrefix(e.Position, "templates/hostile/") || !strings.Contains(e.Reason, "more than 20000 files") {
		t.Errorf("%v", err)
	}
}

// doublingSchema is a schema whose definitions each refer to the next one
// twice through allOf, levels deep: 2^levels checks of any value.
func doublingSchema(levels int) string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": {`)
	for i := range levels {
		fmt.Fprintf(&b, `"d%d": {"allOf": [{"$ref": "#/$defs/d%d"}, {"$ref": "#/$defs/d%d"}]}, `, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d": {"type": "string"}}}`, levels)
	return b.String()
}

// TestSchemaThatDoublesIsRefused: a schema of allOf over $refs that double
// at each level is refused when it compiles, naming the file and the
// definition where the work passes the bound, instead of validating for
// minutes past the render's deadline.
func TestSchemaThatDoublesIsRefused(t *testing.T) {
	t.Parallel()
	fsys := hostileFS(doublingSchema(26), "{{ .x }}")
	lib, err := engine.Load(fsys, engine.WithLimits(engine.Limits{Timeout: 2 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = lib.Render(context.Background(), "hostile", engine.Input{Name: "in.json", Data: []byte(`{"x": "a"}`)})
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindTemplate || !strings.HasPrefix(e.Position, "schemas/hostile.schema.json:") ||
		!strings.HasPrefix(e.Field, "/$defs/d") || !strings.Contains(e.Reason, "checks") {
		t.Fatalf("%#v", err)
	}
	// a few levels are fine
	fsys["schemas/hostile.schema.json"] = &fstest.MapFile{Data: []byte(doublingSchema(8))}
	lib, err = engine.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Render(context.Background(), "hostile", engine.Input{Name: "in.json", Data: []byte(`{"x": "a"}`)}); err != nil {
		t.Fatal(err)
	}
}

// TestRecursiveSchemaThatDoublesIsRefused: so is a recursive schema that
// refers back to itself twice for each level of the value; one that
// refers back once for each property (a tree) is not.
func TestRecursiveSchemaThatDoublesIsRefused(t *testing.T) {
	nested := `{"c": {"c": {"c": {"d": {"c": {}}}}}}`
	for _, c := range []struct {
		schema  string
		refused bool
	}{
		{`{"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "properties": {"c": {"allOf": [{"$ref": "#/$defs/n"}, {"$ref": "#/$defs/n"}]}}}}}`, true},
		{`{"$ref": "#/$defs/n", "$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}, "d": {"$ref": "#/$defs/n"}}, "additionalProperties": {"$ref": "#/$defs/n"}}}}`, false},
	} {
		fsys := hostileFS(c.schema, "x")
		lib, err := engine.Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		_, err = lib.Render(context.Background(), "hostile", engine.Input{Name: "in.json", Data: []byte(nested)})
		var e *engine.Error
		refused := errors.As(err, &e) && e.Kind == engine.KindTemplate && e.Field == "/$defs/n" && strings.Contains(e.Reason, "checks")
		if refused != c.refused || !refused && err != nil {
			t.Errorf("%s: %v", c.schema, err)
		}
	}
}

// TestRangesMeanWhatTheyMeant: the engine's iterator over long ranges
// gives what text/template's own loop gives: items, sorted values of an
// object, index and item, key and value, numbers below an integer, and
// else for an empty list.
func TestRangesMeanWhatTheyMeant(t *testing.T) {
	body := `{{ $l := until 20000 }}{{ $m := dict "b" 2 "a" 1 "c" 3 }}` +
		`{{ $n := 0 }}{{ range $l }}{{ $n = add $n . }}{{ end }}{{ $n }};` +
		`{{ $n = 0 }}{{ range $i, $x := $l }}{{ $n = add $n $i }}{{ end }}{{ $n }};` +
		`{{ range $k, $v := $m }}{{ $k }}{{ $v }}{{ end }};{{ range $m }}{{ . }}{{ end }};` +
		`{{ $n = 0 }}{{ range $x := 20000 }}{{ $n = add $n $x }}{{ end }}{{ $n }};` +
		`{{ range list }}x{{ else }}empty{{ end }}`
	res, err := hostile(t, body, engine.Limits{}).Render(context.Background(), "hostile", engine.Input{Name: "in.json", Data: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "199990000;199990000;a1b2c3;123;199990000;empty"; res.Text != want {
		t.Errorf("got %q, want %q", res.Text, want)
	}
}

// TestRangesNestedTooDeeplyAreRefused: a range holds more stack than an
// if, and so many nested ranges that their stack would reach hundreds of
// megabytes end in the render's error before any runs.
func TestRangesNestedTooDeeplyAreRefused(t *testing.T) {
	t.Parallel()
	k := 20000
	body := strings.Repeat("{{ range until 1 }}", k) + "x" + strings.Repeat("{{ end }}", k)
	err := renderHostile(t, hostile(t, body, engine.Limits{Timeout: 120 * time.Second}))
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindTemplate || !strings.Contains(e.Reason, "nest too deeply") {
		t.Errorf("%v", err)
	}
}

// TestDeeplyNestedRangesRender: ranges nested thousands deep in a file
// under the size limit render; preparing them is not quadratic in their
// depth (which took longer than the render's deadline).
func TestDeeplyNestedRangesRender(t *testing.T) {
	t.Parallel()
	k := 10000
	body := strings.Repeat("{{ range until 1 }}", k) + "x" + strings.Repeat("{{ end }}", k)
	lib := hostile(t, body, engine.Limits{Timeout: 120 * time.Second})
	if err := renderHostile(t, lib); err != nil {
		t.Fatal(err)
	}
}

// TestDeadlineBeforeAnyTemplateIsTheInputs: a deadline that has passed
// before any template runs (here, a deadline of a nanosecond, as a busy
// machine can make of a short one) is reported as the input's, whatever
// the moment it is seen at.
func TestDeadlineBeforeAnyTemplateIsTheInputs(t *testing.T) {
	t.Parallel()
	lib := hostile(t, `never reached`, engine.Limits{Timeout: time.Nanosecond})
	err := renderHostile(t, lib)
	e := engine.AsError(err)
	if e == nil || e.Kind != engine.KindInput || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(e.Reason, "reading and validating the input took longer than the render's deadline") {
		t.Fatalf("got %v, want the input's deadline", err)
	}
}
