// Package pointer reads and builds JSON pointers (RFC 6901), the one way the
// engine names a field of an input. A manifest may use "*" as a token to mean
// every element of an array or every value of an object: /parent/tools/*/id.
package pointer

import (
	"cmp"
	"strconv"
	"strings"
)

// Escape writes one token of a pointer: "~" as "~0", "/" as "~1".
func Escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

func unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}

// Split returns the unescaped tokens of ptr. Only "" is the root, which has
// none: "/" is the member "" of the root (RFC 6901), the pointer Append("", "")
// and Join([]string{""}) build for it.
func Split(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = unescape(t)
	}
	return toks
}

// Join builds the pointer of a path of unescaped tokens.
func Join(toks []string) string {
	var b strings.Builder
	for _, tok := range toks {
		b.WriteByte('/')
		b.WriteString(Escape(tok))
	}
	return b.String()
}

// Append is the pointer of the member tok of the value at ptr.
func Append(ptr, tok string) string { return ptr + "/" + Escape(tok) }

// Index is the pointer of the element i of the array at ptr.
func Index(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }

// Parent is the pointer of the value that holds the one at ptr.
func Parent(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i > 0 {
		return ptr[:i]
	}
	return ""
}

// Compare orders pointers token by token, a value before the values it
// holds, and two tokens that are both numbers (array indexes) as numbers:
// /list/2 before /list/10, which a comparison of the strings gets wrong.
func Compare(a, b string) int {
	ta, tb := Split(a), Split(b)
	for i := range min(len(ta), len(tb)) {
		x, errX := strconv.Atoi(ta[i])
		y, errY := strconv.Atoi(tb[i])
		c := strings.Compare(ta[i], tb[i])
		if errX == nil && errY == nil && x != y {
			c = cmp.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ta), len(tb))
}

// Valid reports whether ptr has the form of a pointer.
func Valid(ptr string) bool { return ptr == "" || strings.HasPrefix(ptr, "/") }

// Lookup returns the value at ptr in a tree of map[string]any and []any,
// and whether there is one.
func Lookup(root any, ptr string) (any, bool) {
	cur := root
	for _, tok := range Split(ptr) {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Match is one value found by a pattern, with its concrete pointer.
type Match struct {
	Pointer string
	Value   any
}

// MatchAll expands a pattern with "*" tokens against root, in document
// order: keys gives an object's keys in the order to visit them.
func MatchAll(root any, pattern string, keys func(map[string]any) []string) []Match {
	return match(root, pattern, keys, true)
}

// MatchValues is MatchAll without the pointers, which a rule needs only to
// report what breaks it: MatchAll(...)[i] is where MatchValues(...)[i] is.
func MatchValues(root any, pattern string, keys func(map[string]any) []string) []Match {
	return match(root, pattern, keys, false)
}

func match(root any, pattern string, keys func(map[string]any) []string, pointers bool) []Match {
	var out []Match
	key := func(at, k string) string {
		if !pointers {
			return ""
		}
		return Append(at, k)
	}
	index := func(at string, i int) string {
		if !pointers {
			return ""
		}
		return Index(at, i)
	}
	var walk func(cur any, toks []string, at string)
	walk = func(cur any, toks []string, at string) {
		if len(toks) == 0 {
			out = append(out, Match{at, cur})
			return
		}
		tok, rest := toks[0], toks[1:]
		switch c := cur.(type) {
		case map[string]any:
			if tok == "*" {
				for _, k := range keys(c) {
					walk(c[k], rest, key(at, k))
				}
			} else if v, ok := c[tok]; ok {
				walk(v, rest, key(at, tok))
			}
		case []any:
			if tok == "*" {
				for i, v := range c {
					walk(v, rest, index(at, i))
				}
			} else if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				walk(c[i], rest, index(at, i))
			}
		}
	}
	walk(root, Split(pattern), "")
	return out
}
