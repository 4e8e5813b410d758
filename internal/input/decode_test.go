package input

import (
	"errors"

	"fmt"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/problem"
)

// TestHostileYAML: inputs that would exhaust memory, loop or panic are
// refused with an error that names where.
func TestHostileYAML(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'j'; i++ {
		laughs += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	cases := []struct{ name, doc, want string }{
		{"alias cycle", "a: &x [*x]\n", "refers to a value that contains it"},
		{"billion laughs", laughs, "expands to more than"},
		{"infinity", "n: .inf\n", "not a number a prompt input can hold"},
		{"NaN", "list: [1, .nan]\n", "not a number a prompt input can hold"},
		{"duplicate key", "a: 1\nb: 2\na: 3\n", `key "a" appears twice`},
		{"merge of a scalar", "a: &s x\nb: {<<: *s}\n", "must refer to a mapping"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(Input{Name: "in.yaml", Data: []byte(c.doc)}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "in.yaml:") {
				t.Fatalf("got %v, want %q with a position", err, c.want)
			}
		})
	}
	for _, doc := range []string{`{"n": 1e999}`, `{"n": -1e400}`} {
		if _, err := Decode(Input{Name: "in.json", Data: []byte(doc)}, nil); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func TestYAMLMergeKeys(t *testing.T) {
	doc := `base: &base {event: merged, a: 1}
more: &more {a: 2, b: 2}
after: {event: explicit, <<: *base}
list: {<<: [*base, *more], c: 3}
`
	d, err := Decode(Input{Name: "m", Data: []byte(doc)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if got := string(AppendJSON(nil, d.Root["after"], d.Order(), false)); got != `{"event":"explicit","a":1}` {
		t.Errorf("explicit keys win wherever << stands: %s", got)
	}
	if got := string(AppendJSON(nil, d.Root["list"], d.Order(), false)); got != `{"event":"merged","a":1,"b":2,"c":3}` {
		t.Errorf("a list of merges, the first winning: %s", got)
	}
}

func TestWholeNumbersAreIntegers(t *testing.T) {
	for _, doc := range []string{`{"n": 2.0}`, `{"n": 2e0}`, "n: 2.0\n"} {
		d, err := Decode(Input{Name: "n", Data: []byte(doc)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v := d.Root["n"]; v != int64(2) {
			t.Errorf("%s: %T %v, want int64 2", doc, v, v)
		}
		d.Release()
	}
	d, _ := Decode(Input{Name: "n", Data: []byte(`{"n": 2.5}`)}, nil)
	if v := d.Root["n"]; v != 2.5 {
		t.Errorf("2.5 became %v", v)
	}
}

func TestPositions(t *testing.T) {
	json := "{\n  \"a\": {\n    \"b\": [1, {\"c\": \"\\ud83d\\ude00\"}]\n  }\n}"
	yml := "a:\n  b:\n    - 1\n    - c: x\n"
	cases := []struct{ in, ptr, want string }{
		{json, "/a", "j:2:3"},
		{json, "/a/b/1", "j:3:14"},
		{json, "/a/b/1/c", "j:3:15"},
		{json, "/a/b/1/missing", "j:3:14"},
		{yml, "/a/b", "y:2:3"},
		{yml, "/a/b/1/c", "y:4:7"},
		{yml, "/zzz", "y:1:1"},
	}
	for _, c := range cases {
		name := "y"
		if strings.HasPrefix(c.in, "{") {
			name = "j"
		}
		if got := (&Document{Input: Input{Name: name, Data: []byte(c.in)}}).Position(c.ptr); got != c.want {
			t.Errorf("%s in %s: %q, want %q", c.ptr, name, got, c.want)
		}
	}
}

// TestDecoderBounds: an input over the size or nesting bound is refused
// before it can cost anything, naming the bound and where it was crossed.
func TestDecoderBounds(t *testing.T) {
	dc := Decoder{MaxBytes: 100, MaxDepth: 3}
	if _, err := dc.Decode(Input{Name: "big", Data: []byte(`{"a": "` + strings.Repeat("x", 200) + `"}`)}); err == nil || !strings.Contains(err.Error(), "over the limit of 100 bytes") {
		t.Errorf("size: %v", err)
	}
	for _, doc := range []string{`{"a": {"b": {"c": {"d": 1}}}}`, "a:\n  b:\n    c:\n      d: [1]\n"} {
		_, err := dc.Decode(Input{Name: "deep", Data: []byte(doc)})
		var e *problem.Error
		if !errors.As(err, &e) || !strings.Contains(e.Reason, "deeper than 3 levels") || e.Field == "" || !strings.HasPrefix(e.Position, "deep:") {
			t.Errorf("%q: %v", doc, err)
		}
	}
	if _, err := dc.Decode(Input{Name: "ok", Data: []byte(`{"a": {"b": {"c": 1}}}`)}); err != nil {
		t.Errorf("within the bounds: %v", err)
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if _, err := Decode(Input{Name: "x", Data: []byte(`{"x": ` + deep + `}`)}, nil); err == nil {
		t.Error("20,000 levels decoded")
	}
	// An array at the top, JSON or YAML, is refused as one, or, nested
	// past the bound, for its depth at its pointer: not as invalid YAML.
	for doc, want := range map[string]string{
		"[1, 2]":      "must be an object, got an array",
		"[a, b: c]":   "must be an object, got an array",
		" [[[[1]]]]":  "deeper than 3 levels",
		"[[[[a]]]]":   "deeper than 3 levels",
		deep:          "deeper than 3 levels",
		"[1, 2":       "invalid YAML",
		"[{}] # note": "must be an object, got an array",
	} {
		_, err := (Decoder{MaxDepth: 3}).Decode(Input{Name: "top", Data: []byte(doc)})
		var e *problem.Error
		if !errors.As(err, &e) || !strings.Contains(e.Reason, want) || !strings.HasPrefix(e.Position, "top") ||
			strings.Contains(want, "deeper") && e.Field != "/0/0/0/0" {
			t.Errorf("%.20q: %v (field %q); want %q", doc, err, e.Field, want)
		}
	}
}
