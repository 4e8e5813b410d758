package input

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/testing/alloc"
)

// TestPositionIsLinearInDepth: finding where a value of a deeply nested
// input is written costs memory linear in the input. An index of every
// value's pointer took 416 MB for these 20 KB.
func TestPositionIsLinearInDepth(t *testing.T) {
	const depth = 9_999 // with the key, 10,000 levels: the parser's own bound
	cases := map[string]struct{ data, ptr, want string }{
		"json arrays": {`{"x": ` + strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth) + "}",
			"/x" + strings.Repeat("/0", depth) + "/missing", "deep:1:10006"},
		"json objects": {strings.Repeat(`{"a":`, depth+1) + "1" + strings.Repeat("}", depth+1),
			strings.Repeat("/a", depth+1), "deep:1:49997"},
		"yaml flow": {"x: " + strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth) + "\n",
			"/x" + strings.Repeat("/0", depth), "deep:1:10003"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var pos string
			used := alloc.Bytes(func() {
				d, err := Decode(Input{Name: "deep", Data: []byte(c.data)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Release()
				pos = d.Position(c.ptr)
			})
			if pos != c.want {
				t.Errorf("position %q, want %q", pos, c.want)
			}
			if used > 50<<20 {
				t.Errorf("decoding %d bytes and one position allocated %d MB", len(c.data), used>>20)
			}
		})
	}
}

func TestPositionsFollowThePointer(t *testing.T) {
	doc := "{\"a/b\": {\"~k\": [\"]}\\\"[{\", {\"x\": 1}]},\n \"e\\u0073c\": true, \"\": {\"n\": [[], [null, false]]}}"
	d, err := Decode(Input{Name: "j", Data: []byte(doc)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"/a~1b":          "j:1:2",
		"/a~1b/~0k":      "j:1:10",
		"/a~1b/~0k/1":    "j:1:27",
		"/a~1b/~0k/1/x":  "j:1:28",
		"/a~1b/~0k/01":   "j:1:10", // not an index as a pointer writes one
		"/a~1b/~0k/2":    "j:1:10",
		"/esc":           "j:2:2",
		"/":              "j:2:20",
		"/n":             "",
		"//n/1/1":        "j:2:42",
		"//n/1/1/deeper": "j:2:42",
		"":               "",
		"no slash":       "",
	}
	for range 3 { // in the map's random orders, with what calls remember
		for ptr, want := range cases {
			if got := d.Position(ptr); got != want {
				t.Errorf("%q: %q, want %q", ptr, got, want)
			}
		}
	}
}

// TestStringsMustBeText: NUL, bytes that are not UTF-8 and unpaired
// surrogates are refused alike in JSON and YAML, in values and keys,
// naming the field and where it is written.
func TestStringsMustBeText(t *testing.T) {
	cases := []struct{ name, doc, field, pos, reason string }{
		{"JSON escaped NUL", `{"a": {"b": "x\u0000y"}}`, "/a/b", "in:1:15", "NUL"},
		{"JSON raw NUL", "{\"a\": [\"x\x00\"]}", "/a/0", "in:1:10", "NUL"},
		{"JSON NUL in a key", `{"a": {"k\u0000": 1}}`, "/a", "in:1:10", "a key of this object holds a NUL"},
		{"JSON invalid UTF-8", "{\"a\": \"ok \xff\"}", "/a", "in:1:11", "byte 0xff"},
		{"JSON invalid UTF-8 in a key", "{\"\xc3\": 1}", "", "in:1:3", "byte 0xc3"},
		{"JSON lone surrogate", `{"s": "\ud800 x"}`, "/s", "in:1:8", `\ud800, half of a UTF-16 surrogate pair`},
		{"JSON bad pair", `{"s": "\ud800\u0041"}`, "/s", "in:1:8", "surrogate"},
		{"YAML escaped NUL", "a:\n  b: \"x\\0y\"\n", "/a/b", "in:2:6", "NUL"},
		{"YAML escaped NUL by code", "a: [\"\\x00\"]\n", "/a/0", "in:1:5", "NUL"},
		{"YAML NUL in a key", "a:\n  \"k\\u0000\": 1\n", "/a", "in:2:3", "a key of this object holds a NUL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(Input{Name: "in", Data: []byte(c.doc)}, nil)
			var e *problem.Error
			if !errors.As(err, &e) || !errors.Is(err, ErrNotText) || e.Kind != problem.KindInput {
				t.Fatalf("got %v, want a not-text input error", err)
			}
			if e.Field != c.field || e.Position != c.pos || !strings.Contains(e.Reason, c.reason) {
				t.Errorf("got field %q position %q reason %q, want %q %q %q", e.Field, e.Position, e.Reason, c.field, c.pos, c.reason)
			}
		})
	}
	// Raw bytes YAML itself refuses, with its own message.
	for _, doc := range []string{"a: x\xffy\n", "a: x\x00y\n", "a: \"\\ud800\"\n"} {
		if _, err := Decode(Input{Name: "in", Data: []byte(doc)}, nil); err == nil {
			t.Errorf("%q was accepted", doc)
		}
	}
	// Text outside the Basic Multilingual Plane, escaped or not, is text.
	d, err := Decode(Input{Name: "in", Data: []byte(`{"a": "\ud83c\udf89 🎉", "b": "\u0001"}`)}, nil)
	if err != nil || d.Root["a"] != "🎉 🎉" || d.Root["b"] != "\x01" {
		t.Errorf("valid text: %v %q", err, d.Root)
	}
}

// TestNumbersBeyondInt64AreRefused: a number an integer cannot hold is an
// input error naming the field and the range, in JSON and YAML, however it
// is written; the bounds themselves are numbers.
func TestNumbersBeyondInt64AreRefused(t *testing.T) {
	for _, doc := range []string{`{"s": {"n": 9223372036854775808}}`, `{"s": {"n": -9223372036854775809}}`, `{"s": {"n": 1e19}}`,
		`{"s": {"n": 1e999}}`, "s:\n  n: 9223372036854775808\n", "s:\n  n: -1.0e+19\n", "s:\n  n: -9223372036854775809\n", "s: {n: 99999999999999999999999}\n"} {
		_, err := Decode(Input{Name: "in", Data: []byte(doc)}, nil)
		var e *problem.Error
		if !errors.As(err, &e) || !errors.Is(err, ErrOutOfRange) || e.Kind != problem.KindInput || e.Field != "/s/n" ||
			!strings.Contains(e.Reason, "between -9223372036854775808 and 9223372036854775807") || !strings.HasPrefix(e.Position, "in:") {
			t.Errorf("%s: got %#v", doc, e)
		}
	}
	for doc, want := range map[string]any{
		`{"n": 9223372036854775807}`:  int64(9223372036854775807),
		`{"n": -9223372036854775808}`: int64(-9223372036854775808),
		"n: 9223372036854775807\n":    int64(9223372036854775807),
		`{"n": 1.5e300}`:              nil, // refused: every float that large is whole
		`{"n": 2.5}`:                  2.5,
	} {
		d, err := Decode(Input{Name: "in", Data: []byte(doc)}, nil)
		if want == nil {
			if !errors.Is(err, ErrOutOfRange) {
				t.Errorf("%s: %v", doc, err)
			}
			continue
		}
		if err != nil || d.Root["n"] != want {
			t.Errorf("%s: %v %#v", doc, err, d)
		}
	}
}

// TestOneYAMLDocument: a second document would be lost; it is refused,
// naming the line where it starts.
func TestOneYAMLDocument(t *testing.T) {
	for doc, pos := range map[string]string{
		"a: 1\n---\nb: 2\n":           "in:2",
		"a: 1\n...\n---\nc: 1\n":      "in:3",
		"---\na: 1\n---\n---\nb: 2\n": "in:4",
	} {
		_, err := Decode(Input{Name: "in", Data: []byte(doc)}, nil)
		var e *problem.Error
		if !errors.As(err, &e) || e.Kind != problem.KindInput || e.Position != pos || !strings.Contains(e.Reason, "more than one YAML document") {
			t.Errorf("%q: got %v, want an input error at %s", doc, err, pos)
		}
	}
	if _, err := Decode(Input{Name: "in", Data: []byte("a: 1\n---\nb: [\n")}, nil); err == nil || !strings.Contains(err.Error(), "in:3") {
		t.Errorf("a broken second document: %v", err)
	}
	for _, doc := range []string{"---\na: 1\n", "a: 1\n...\n", "a: 1\n---\n", "# nothing\n", ""} {
		if _, err := Decode(Input{Name: "in", Data: []byte(doc)}, nil); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
}

// FuzzPosition: every value of a document that decodes has a position
// (the top-level JSON object aside), and no pointer makes Position fail.
func FuzzPosition(f *testing.F) {
	for _, seed := range []string{`{"a": [1, {"b": "]"}], "c\u0041": {}}`, "a:\n  - 1\n  - {b: x}\n", `{"": {"~/": [[]]}}`, "x: &a [1]\ny: *a\n"} {
		f.Add(seed, "/a/1/b")
	}
	f.Fuzz(func(t *testing.T, doc, ptr string) {
		d, err := Decode(Input{Name: "f", Data: []byte(doc)}, nil)
		if err != nil {
			return
		}
		defer d.Release()
		d.Position(ptr)
		var walk func(v any, p path)
		walk = func(v any, p path) {
			got := d.Position(p.pointer())
			if len(p) > 0 && got == "" {
				t.Fatalf("%q: no position for %s", doc, p.pointer())
			}
			// What one call remembers for the next changes no answer.
			if fresh := (&Document{Input: d.Input}).Position(p.pointer()); fresh != got {
				t.Fatalf("%q: %s is at %s, and at %s asked first", doc, p.pointer(), got, fresh)
			}
			switch c := v.(type) {
			case map[string]any:
				for k, e := range c {
					walk(e, append(p, step{key: k, index: -1}))
				}
			case []any:
				for i, e := range c {
					walk(e, append(p, step{index: i}))
				}
			}
		}
		walk(d.Root, nil)
	})
}

// TestYAMLAliasesCostTheirSize: nested aliases may expand an input only in
// proportion to its size. 272 bytes expanded to a million values, 30 MB.
func TestYAMLAliasesCostTheirSize(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'f'; i++ {
		doc += strings.NewReplacer("N", string(i), "P", string(i-1)).Replace("N: &N [*P, *P, *P, *P, *P, *P, *P, *P, *P, *P]\n")
	}
	var err error
	used := alloc.Bytes(func() { _, err = Decode(Input{Name: "laughs", Data: []byte(doc)}, nil) })
	if err == nil || !strings.Contains(err.Error(), "expands to more than 10000 values") {
		t.Errorf("%d bytes: %v", len(doc), err)
	}
	if used > 4<<20 {
		t.Errorf("%d bytes of YAML allocated %d MB", len(doc), used>>20)
	}
	// Aliases that repeat what an input holds a few times over are fine.
	d, err := Decode(Input{Name: "ok", Data: []byte("tools: &t [a, b, c]\nx: *t\ny: *t\nz: [*t, *t, *t]\n")}, nil)
	if err != nil || len(d.Root) != 4 {
		t.Errorf("modest aliases: %v", err)
	}
}

// TestPositionsRememberLargeValues: the ends of large values one call
// skipped, and the line it reached, serve the next calls, in any order,
// with the answers of calls that start afresh.
func TestPositionsRememberLargeValues(t *testing.T) {
	big := strings.Repeat(`x\"y\\`, 300)
	doc := "{\n\"a\": \"" + big + "\",\n\"b\": {\"c\": [\"" + big + "\", {\"d\": \"" + big + "\"}, 3],\n \"e\": [" +
		strings.Repeat(`"`+big+`",`, 3) + "4]},\n\"f\": 5, \"g\": {\"h\": 6}}"
	d, err := Decode(Input{Name: "big", Data: []byte(doc)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ptrs := []string{"/a", "/b", "/b/c", "/b/c/0", "/b/c/1", "/b/c/1/d", "/b/c/2", "/b/e", "/b/e/3", "/f", "/g/h", "/g/missing", "/zzz", "/b/c/9"}
	want := map[string]string{}
	for _, p := range ptrs {
		want[p] = (&Document{Input: d.Input}).Position(p)
	}
	if want["/g/h"] != "big:5:15" || want["/b/e/3"] != "big:4:"+strconv.Itoa(8+3*(len(big)+3)) {
		t.Fatalf("fresh positions %v", want)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		p := ptrs[rng.IntN(len(ptrs))]
		if got := d.Position(p); got != want[p] {
			t.Fatalf("%s: %s, afresh %s", p, got, want[p])
		}
	}
	if len(d.jsonSkips) == 0 {
		t.Error("no large value was remembered")
	}
}

// TestYAMLAliasesCostTheirBytes: aliases of a large string are counted by
// the text they repeat, not only by their number: 9,900 aliases of 1 MiB
// are refused once they pass four times the input limit, at the alias that
// passes it, having cost little.
func TestYAMLAliasesCostTheirBytes(t *testing.T) {
	doc := "big: &p " + strings.Repeat("x", 1<<20) + "\nextra:\n" + strings.Repeat("  - *p\n", 9900)
	var err error
	used := alloc.Bytes(func() { _, err = Decoder{MaxBytes: 2 << 20}.Decode(Input{Name: "laughs", Data: []byte(doc)}) })
	var e *problem.Error
	if !errors.As(err, &e) || e.Field != "/extra/6" || !strings.Contains(e.Reason, "more than 8 MiB of text through its aliases") {
		t.Fatalf("got %v", err)
	}
	if used > 16<<20 {
		t.Errorf("refusing %d bytes of aliases allocated %d MB", len(doc), used>>20)
	}
	// Keys count too: a mapping with long keys aliased many times.
	keys := "m: &m\n  ? " + strings.Repeat("k", 100_000) + "\n  : 1\nl: [" + strings.Repeat("*m, ", 200) + "*m]\n"
	if _, err := (Decoder{MaxBytes: 1 << 20}).Decode(Input{Name: "keys", Data: []byte(keys)}); err == nil || !strings.Contains(err.Error(), "of text through its aliases") {
		t.Errorf("aliased keys: %v", err)
	}
	// Aliases of a large value a few times over are fine.
	few := "big: &p " + strings.Repeat("x", 1<<20) + "\ncopies: [*p, *p]\n"
	if _, err := (Decoder{MaxBytes: 2 << 20}).Decode(Input{Name: "few", Data: []byte(few)}); err != nil {
		t.Errorf("two aliases: %v", err)
	}
}

// TestDecodeStopsWithItsContext: expanding aliases stops once the context
// is done, with the context's error.
func TestDecodeStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	if _, err := (Decoder{}).DecodeContext(ctx, Input{Name: "in", Data: []byte(doc)}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the context's error", err)
	}
	if _, err := (Decoder{}).DecodeContext(context.Background(), Input{Name: "in", Data: []byte(doc)}); err != nil {
		t.Errorf("without a deadline: %v", err)
	}
}

// TestShortWritesLittle: the value an error quotes is cut as it is written,
// so that quoting gigabytes (a list aliasing a large string) costs no more
// than quoting a line.
func TestShortWritesLittle(t *testing.T) {
	big := strings.Repeat("é", 1<<20)
	list := make([]any, 10_000)
	for i := range list {
		list[i] = map[string]any{"k": big}
	}
	var s string
	used := alloc.Bytes(func() { s = Short(list, nil) })
	if !strings.HasPrefix(s, `[{"k":"éé`) || !strings.HasSuffix(s, "...") || utf8.RuneCountInString(s) != 80 {
		t.Errorf("Short: %q", s)
	}
	if used > 64<<10 {
		t.Errorf("Short allocated %d bytes", used)
	}
	for v, want := range map[any]string{"a": `"a"`, int64(3): "3", nil: "null"} {
		if got := Short(v, nil); got != want {
			t.Errorf("Short(%v) = %s", v, got)
		}
	}
}
