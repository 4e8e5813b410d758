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
