package input

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/problem"
)

// TestJSONMatchesEncodingJSON decodes the same documents with the engine's
// parser and with encoding/json and wants the same values.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`,
		`{"a": 1, "b": -2.5e3, "c": true, "d": false, "e": null, "f": "x"}`,
		`{"esc": "q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83c\udf89 \u2028"}`,
		`{"nested": {"list": [1, [2, {"x": []}], {}], "big": 1234567890123456789, "small": -9223372036854775808}}`,
		"{\"raw utf8\": \"日本語 🎉\"}",
		` { "space" :  [ 1 , 2 ] } `,
	}
	for _, doc := range docs {
		d := &Document{Input: Input{Name: "t"}, order: &KeyOrder{}}
		got, err := d.decodeJSON([]byte(doc), 0)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var want any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Errorf("%s:\n got %#v\nwant %#v", doc, got, want)
		}
		d.Release()
	}
}

// normalize turns every number into float64, as encoding/json gives them.
func normalize(v any) any {
	switch c := v.(type) {
	case int64:
		return float64(c)
	case map[string]any:
		for k, e := range c {
			c[k] = normalize(e)
		}
	case []any:
		for i, e := range c {
			c[i] = normalize(e)
		}
	}
	return v
}

func TestJSONErrorsNamePositions(t *testing.T) {
	cases := map[string]string{
		"{\n  \"a\": 1,\n  \"b\" 2\n}": "t:3:7",
		"{\"a\": [1, 2}":               "t:1:12",
		"{\"a\": \"unterminated":       "t:1:7",
		"{\"a\": 1}\n{\"b\": 2}":       "t:2:1",
		"{\"a\": tru}":                 "t:1:7",
		"{\"a\": 1, \"a\": 2}":         "t:1:10",
		"{\"ctl\": \"a\tb\"}":          "t:1:11",
		"{\"n\": 01}":                  "t:1:7",
	}
	for doc, pos := range cases {
		_, err := Decode(Input{Name: "t", Data: []byte(doc)}, nil)
		var e *problem.Error
		ok := errors.As(err, &e)
		if !ok || e.Position != pos {
			t.Errorf("%q: got %v (position %q), want position %s", doc, err, e.Position, pos)
		}
		if ok && !strings.Contains(e.Error(), pos) {
			t.Errorf("%q: message %q lacks the position", doc, e.Error())
		}
	}
}

func TestKeyOrderIsKept(t *testing.T) {
	for _, doc := range []string{`{"z": 1, "a": {"y": 1, "b": 2}, "m": 3}`, "z: 1\na:\n  y: 1\n  b: 2\nm: 3\n"} {
		d, err := Decode(Input{Name: "t", Data: []byte(doc)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(d.Keys(d.Root), ","); got != "z,a,m" {
			t.Errorf("%q: top-level order %s", doc, got)
		}
		if got := string(AppendJSON(nil, d.Root, d.Order(), false)); got != `{"z":1,"a":{"y":1,"b":2},"m":3}` {
			t.Errorf("%q: json %s", doc, got)
		}
		d.Release()
		if got := strings.Join(d.Keys(d.Root), ","); got != "a,m,z" {
			t.Errorf("after release, order should fall back to sorted, got %s", got)
		}
	}
}

// refusedByDesign reports whether err is one of the refusals the engine
// makes where encoding/json accepts: a key written twice (encoding/json
// takes the last), a string that is not text (encoding/json replaces
// invalid bytes and unpaired surrogates with U+FFFD and keeps NUL), a
// number beyond int64 (encoding/json gives a float64).
func refusedByDesign(err error) bool {
	return strings.Contains(err.Error(), "appears twice") || errors.Is(err, ErrNotText) || errors.Is(err, ErrOutOfRange)
}

// FuzzJSONMatchesEncodingJSON: the engine's decoder accepts what
// encoding/json accepts (objects at the top), but for the refusals above,
// and gives the same values.
func FuzzJSONMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a": [1, 2.5, "x\n", null, true]}`, `{"a": "\ud83c\udf89"}`, `{"a":1,}`, `{"a" 1}`, `{"\u0000": "\\"}`,
		"{\"a\": \"\xff\"}", `{"a": "\ud800"}`, `{"n": 9223372036854775808}`, `{"n": -1e19}`, `{"n": 9223372036854775807}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var want map[string]any
		wantErr := json.Unmarshal([]byte(doc), &want)
		d := &Document{Input: Input{Name: "f"}, order: &KeyOrder{}}
		got, err := d.decodeJSON([]byte(doc), 0)
		defer d.Release()
		if _, isObj := got.(map[string]any); wantErr == nil && err == nil && !isObj {
			return // null at the top: encoding/json leaves the map nil, an input must be an object
		}
		if wantErr != nil {
			if err == nil {
				if _, isObj := got.(map[string]any); isObj && !strings.Contains(wantErr.Error(), "duplicate") {
					t.Fatalf("%q: accepted what encoding/json rejects (%v)", doc, wantErr)
				}
			}
			return
		}
		if err != nil {
			if refusedByDesign(err) {
				return
			}
			t.Fatalf("%q: %v", doc, err)
		}
		if !reflect.DeepEqual(normalize(got), normalize(any(want))) {
			t.Fatalf("%q:\n got %#v\nwant %#v", doc, got, want)
		}
	})
}

// TestSpecialMissesNoByte: the eight-byte test flags every word holding a
// byte that the string scan must look at, wherever it stands among bytes
// that need no look.
func TestSpecialMissesNoByte(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			word := []byte("abcdefgh")
			word[pos] = byte(c)
			needs := c == '"' || c < 0x20 || c >= 0x80
			if needs && special(binary.LittleEndian.Uint64(word)) == 0 {
				t.Errorf("byte 0x%02x at %d not flagged", c, pos)
			}
		}
	}
	// On any word, the first byte reported is the first that needs a look,
	// and a word with none reports nothing.
	rng := rand.New(rand.NewPCG(1, 2))
	interesting := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff, 'a', ' '}
	for range 200000 {
		var word [8]byte
		first := -1
		for i := range word {
			word[i] = interesting[rng.IntN(len(interesting))]
			if c := word[i]; first < 0 && (c == '"' || c < 0x20 || c >= 0x80) {
				first = i
			}
		}
		mask := special(binary.LittleEndian.Uint64(word[:]))
		if (first < 0) != (mask == 0) || (first >= 0 && bits.TrailingZeros64(mask)/8 != first) {
			t.Fatalf("%q: mask %x, first byte needing a look %d", word, mask, first)
		}
	}
}

// TestLongStrings: strings long enough for the eight-byte scan, with what
// stops it at every offset, decode as encoding/json decodes them, and a
// byte that is not UTF-8 is placed exactly.
func TestLongStrings(t *testing.T) {
	for _, stop := range []string{`\"`, `\\`, `\\\"`, `\\\\`, `\\\\\"`, `\n`, `\u00e9`, "é", "🎉", `\ud83c\udf89`} {
		for at := 0; at < 20; at++ {
			doc := `{"s": "` + strings.Repeat("x", at) + stop + strings.Repeat("y", 23) + `"}`
			d := &Document{Input: Input{Name: "t"}, order: &KeyOrder{}}
			got, err := d.decodeJSON([]byte(doc), 0)
			var want any
			if jerr := json.Unmarshal([]byte(doc), &want); err != nil || jerr != nil {
				t.Fatalf("%s: %v / %v", doc, err, jerr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n got %#v\nwant %#v", doc, got, want)
			}
			d.Release()
		}
	}
	for at := 0; at < 20; at++ {
		doc := `{"s": "` + strings.Repeat("x", at) + "\xff" + strings.Repeat("y", 20) + `"}`
		d := &Document{Input: Input{Name: "t"}, order: &KeyOrder{}}
		_, err := d.decodeJSON([]byte(doc), 0)
		var pe *problem.Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrNotText) || !strings.HasSuffix(pe.Position, fmt.Sprintf(":1:%d", 8+at)) {
			t.Errorf("0xff at %d: %v", at, err)
		}
		d.Release()
	}
}

// TestCutShortInsideACharacter: an input that ends inside a multi-byte
// character was cut short; it says so, rather than that it is not UTF-8.
func TestCutShortInsideACharacter(t *testing.T) {
	d := &Document{Input: Input{Name: "t"}, order: &KeyOrder{}}
	defer d.Release()
	_, err := d.decodeJSON([]byte("{\"a\": \"caf\xc3"), 0)
	if err == nil || !strings.Contains(err.Error(), "string never closed") || errors.Is(err, ErrNotText) {
		t.Errorf("cut short: %v", err)
	}
	_, err = d.decodeJSON([]byte("{\"a\": \"caf\xc3x\"}"), 0)
	if !errors.Is(err, ErrNotText) {
		t.Errorf("a broken character inside the text: %v", err)
	}
}
