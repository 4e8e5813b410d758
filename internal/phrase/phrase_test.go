package phrase

import (
	"strings"
	"testing"
)

func TestQuoteAndClip(t *testing.T) {
	cases := []struct{ got, want string }{
		{Quote("short"), `"short"`},
		{Quote(strings.Repeat("a", 200)), `"` + strings.Repeat("a", 200) + `"`},
		{Quote(strings.Repeat("a", 201)), `"` + strings.Repeat("a", 200) + `"... (201 bytes in all)`},
		{Quote(strings.Repeat("a", 199) + "é"), `"` + strings.Repeat("a", 199) + `"... (201 bytes in all)`}, // never half a character
		{Clip("abc", 3), "abc"},
		{Clip("abcdef", 3), "abc... (3 more bytes)"},
		{Clip("aé", 2), "a... (2 more bytes)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestClosestSkipsWhatCannotBeATypo(t *testing.T) {
	known := []string{"agent", "parent", "delegation"}
	for name, want := range map[string]string{"agnet": "agent", "parnet": "parent", "x": "", strings.Repeat("a", 1_000_000): ""} {
		if got := Closest(name, known); got != want {
			t.Errorf("Closest(%.20q) = %q, want %q", name, got, want)
		}
	}
}

func TestGoKind(t *testing.T) {
	t.Parallel()
	for typ, want := range map[string]string{
		"string": "string", "bool": "bool", "int": "int", "int64": "int", "uint8": "uint",
		"float64": "float", "[]interface {}": "list", "[]string": "list", "map[string]interface {}": "map",
		"json.Number": "", "time.Time": "", "*manifest.Checks": "",
	} {
		if got := GoKind(typ); got != want {
			t.Errorf("GoKind(%q) = %q, want %q", typ, got, want)
		}
	}
}

func TestCommonPrefixLen(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 3}, {"abc", "abd", 2}, {"ab", "abc", 2}, {"abc", "", 0}, {"x", "y", 0}} {
		if got := CommonPrefixLen(c.a, c.b); got != c.want {
			t.Errorf("CommonPrefixLen(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
