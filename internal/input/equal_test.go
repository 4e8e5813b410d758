package input

import (
	"strings"
	"testing"
)

// TestEqual is the engine's one equality: numbers by value, never a number
// and a string, objects whatever their key order.
func TestEqual(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{int64(1), 1.0, true},
		{int64(1), 1, true},
		{int64(1), "1", false},
		{"a", "a", true},
		{true, "true", false},
		{nil, nil, true},
		{nil, "", false},
		{map[string]any{"a": int64(1), "b": "x"}, map[string]any{"b": "x", "a": 1.0}, true},
		{[]any{"a", int64(2)}, []any{"a", int64(2)}, true},
		{[]any{"a", int64(2)}, []any{int64(2), "a"}, false},
		{[]any{"1"}, []any{int64(1)}, false},
		// Keys of scalars are their text, of the rest a hash: no scalar
		// key may meet another type's.
		{"z", nil, false},
		{"t", true, false},
		{"n1", int64(1), false},
		{"s", "s", true},
		{[]any{}, "#", false},
		{strings.Repeat("x", 65), strings.Repeat("x", 65), true},
		{strings.Repeat("x", 65), strings.Repeat("x", 64) + "y", false},
		{strings.Repeat("x", 64), strings.Repeat("x", 64), true},
		{[]any{strings.Repeat("x", 65)}, []any{strings.Repeat("x", 65)}, true},
		{map[string]any{}, []any{}, false},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%#v, %#v) = %v", c.a, c.b, got)
		}
		if got := Key(c.a) == Key(c.b); got != c.want {
			t.Errorf("Key(%#v) == Key(%#v) is %v", c.a, c.b, got)
		}
	}
}
