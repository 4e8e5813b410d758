package pointer_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/promptsmith/promptsmith/internal/pointer"
)

// TestEscape holds that a token is written with "~" as "~0" and "/" as
// "~1", and that Split reads every escaped token back as it was.
func TestEscape(t *testing.T) {
	cases := []struct {
		name, tok, want string
	}{
		{"plain", "agent", "agent"},
		{"empty", "", ""},
		{"tilde", "a~b", "a~0b"},
		{"slash", "a/b", "a~1b"},
		{"both", "~/", "~0~1"},
		{"an escape as text", "~1", "~01"},
		{"an escape of tilde as text", "~0", "~00"},
		{"unicode", "clé/値", "clé~1値"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pointer.Escape(c.tok); got != c.want {
				t.Errorf("Escape(%q) = %q, want %q", c.tok, got, c.want)
			}
			ptr := "/x/" + c.want
			if got := pointer.Split(ptr); len(got) != 2 || got[1] != c.tok {
				t.Errorf("Split(%q) = %q, want [\"x\" %q]", ptr, got, c.tok)
			}
		})
	}
}

// TestSplitJoin holds that Split reads a pointer into unescaped tokens, the
// root "" into none and "/" into the one empty key, and that Join writes the
// tokens back as the same pointer.
func TestSplitJoin(t *testing.T) {
	cases := []struct {
		name string
		ptr  string
		toks []string
	}{
		{"root", "", nil},
		{"the empty key of the root", "/", []string{""}},
		{"one", "/a", []string{"a"}},
		{"nested", "/parent/tools/0/id", []string{"parent", "tools", "0", "id"}},
		{"escaped", "/a~1b/c~0d", []string{"a/b", "c~d"}},
		{"~01 is ~1, not /", "/~01", []string{"~1"}},
		{"empty token inside", "/a//b", []string{"a", "", "b"}},
		{"empty token at the end", "/a/", []string{"a", ""}},
		{"wildcard", "/tools/*/id", []string{"tools", "*", "id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := pointer.Split(c.ptr)
			if !slices.Equal(got, c.toks) {
				t.Errorf("Split(%q) = %q, want %q", c.ptr, got, c.toks)
			}
			if back := pointer.Join(got); back != c.ptr {
				t.Errorf("Join(Split(%q)) = %q", c.ptr, back)
			}
		})
	}
}

// TestCompare holds that pointers sort token by token, array indexes as
// numbers, and a value before what it holds.
func TestCompare(t *testing.T) {
	want := []string{"", "/", "/a", "/a/b", "/list", "/list/2", "/list/2/x", "/list/10", "/list/x", "/z"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortStableFunc(got, pointer.Compare)
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q\nwant   %q", got, want)
	}
}

// TestBuild holds that Append, Index and Parent build the pointers of a
// member, an element and the value that holds one.
func TestBuild(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"append to the root", pointer.Append("", "a"), "/a"},
		{"append escapes", pointer.Append("/a", "b/c~"), "/a/b~1c~0"},
		{"index", pointer.Index("/items", 3), "/items/3"},
		{"index of the root", pointer.Index("", 0), "/0"},
		{"parent", pointer.Parent("/a/b/c"), "/a/b"},
		{"parent of a top-level field", pointer.Parent("/a"), ""},
		{"parent of the root", pointer.Parent(""), ""},
		{"parent keeps escapes", pointer.Parent("/a~1b/c"), "/a~1b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}

// TestValid holds that a pointer is the root or starts with "/".
func TestValid(t *testing.T) {
	cases := []struct {
		ptr  string
		want bool
	}{
		{"", true},
		{"/", true},
		{"/a/b", true},
		{"a/b", false},
		{"#/a", false},
		{" /a", false},
	}
	for _, c := range cases {
		t.Run(c.ptr, func(t *testing.T) {
			if got := pointer.Valid(c.ptr); got != c.want {
				t.Errorf("Valid(%q) = %v, want %v", c.ptr, got, c.want)
			}
		})
	}
}

func tree() map[string]any {
	return map[string]any{
		"title": "T",
		"a/b":   "slash",
		"m~n":   "tilde",
		"items": []any{
			map[string]any{"id": "x", "tags": []any{"red"}},
			map[string]any{"id": "y", "done": true},
		},
		"nested": map[string]any{"deep": map[string]any{"n": int64(7)}},
		"nil":    nil,
	}
}

// TestLookup holds that Lookup follows members and indexes through maps and
// lists, finds a nil value as present, and reports every way of missing:
// no such key, an index out of range or not a number, a step into a scalar.
func TestLookup(t *testing.T) {
	root := tree()
	cases := []struct {
		name string
		ptr  string
		want any
		ok   bool
	}{
		{"root", "", root, true},
		{"member", "/title", "T", true},
		{"escaped slash", "/a~1b", "slash", true},
		{"escaped tilde", "/m~0n", "tilde", true},
		{"element", "/items/1/id", "y", true},
		{"element of an element", "/items/0/tags/0", "red", true},
		{"nested maps", "/nested/deep/n", int64(7), true},
		{"a nil value is there", "/nil", nil, true},
		{"missing key", "/titel", nil, false},
		{"missing key in an element", "/items/0/done", nil, false},
		{"index past the end", "/items/2", nil, false},
		{"negative index", "/items/-1", nil, false},
		{"index not a number", "/items/first", nil, false},
		{"wildcard is not a lookup", "/items/*/id", nil, false},
		{"into a string", "/title/0", nil, false},
		{"into nil", "/nil/x", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := pointer.Lookup(root, c.ptr)
			if ok != c.ok || !reflect.DeepEqual(got, c.want) {
				t.Errorf("Lookup(%q) = %v, %v; want %v, %v", c.ptr, got, ok, c.want, c.ok)
			}
		})
	}
}

// TestMatchAll holds that a pattern's "*" visits every element of a list
// in order and every value of an object in the order keys gives, that each
// match carries its concrete pointer, and that what is missing matches
// nothing; MatchValues finds the same values without pointers.
func TestMatchAll(t *testing.T) {
	root := map[string]any{
		"tools": []any{
			map[string]any{"id": "a", "args": map[string]any{"z": int64(1), "y": int64(2)}},
			map[string]any{"name": "no id"},
			map[string]any{"id": "c"},
		},
		"by/name": map[string]any{"q": "Q", "p": "P"},
		"scalar":  "s",
	}
	// Reverse-sorted keys: proof that the order is keys', not the map's.
	keys := func(m map[string]any) []string {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		slices.Reverse(ks)
		return ks
	}
	cases := []struct {
		name    string
		pattern string
		want    []pointer.Match
	}{
		{"no wildcard", "/tools/0/id", []pointer.Match{{"/tools/0/id", "a"}}},
		{"the root", "", []pointer.Match{{"", root}}},
		{"every element, skipping one without the field", "/tools/*/id",
			[]pointer.Match{{"/tools/0/id", "a"}, {"/tools/2/id", "c"}}},
		{"every value, in keys' order", "/tools/0/args/*",
			[]pointer.Match{{"/tools/0/args/z", int64(1)}, {"/tools/0/args/y", int64(2)}}},
		{"two wildcards", "/tools/*/args/*",
			[]pointer.Match{{"/tools/0/args/z", int64(1)}, {"/tools/0/args/y", int64(2)}}},
		{"pointers are escaped", "/by~1name/*",
			[]pointer.Match{{"/by~1name/q", "Q"}, {"/by~1name/p", "P"}}},
		{"missing field", "/nope/*", nil},
		{"index out of range", "/tools/3", nil},
		{"wildcard over a scalar", "/scalar/*", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := pointer.MatchAll(root, c.pattern, keys)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("MatchAll(%q) = %v, want %v", c.pattern, got, c.want)
			}
			values := pointer.MatchValues(root, c.pattern, keys)
			if len(values) != len(c.want) {
				t.Fatalf("MatchValues(%q) found %d values, MatchAll %d", c.pattern, len(values), len(c.want))
			}
			for i, m := range values {
				if m.Pointer != "" || !reflect.DeepEqual(m.Value, c.want[i].Value) {
					t.Errorf("MatchValues(%q)[%d] = %v, want {\"\" %v}", c.pattern, i, m, c.want[i].Value)
				}
			}
		})
	}
}

// TestEmptyKeyAtTheTop holds that the pointer Append builds for the member
// "" of the root names that member, as RFC 6901 says: "/" is the pointer of
// the key "", not of the root.
func TestEmptyKeyAtTheTop(t *testing.T) {
	root := map[string]any{"": "empty key", "a": map[string]any{"": "nested empty key"}}
	cases := []struct {
		name string
		ptr  string
		want any
	}{
		{"nested, which works", pointer.Append("/a", ""), "nested empty key"},
		{"at the top", pointer.Append("", ""), "empty key"},
		{"joined", pointer.Join([]string{""}), "empty key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, ok := pointer.Lookup(root, c.ptr); !ok || got != c.want {
				t.Errorf("Lookup(%q) = %v, %v; want %q", c.ptr, got, ok, c.want)
			}
		})
	}
}
