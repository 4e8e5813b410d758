package engine

import (
	"strconv"
	"strings"
)

// JSON pointers (RFC 6901) name input fields in manifests and errors. A
// manifest may use "*" as a token to mean every element of an array or every
// value of an object, e.g. /parent/tools/*/id.

func escapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

func unescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}

func splitPointer(ptr string) []string {
	if ptr == "" || ptr == "/" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = unescapePointer(t)
	}
	return toks
}

func validPointer(ptr string) bool { return ptr == "" || strings.HasPrefix(ptr, "/") }

// lookup returns the value at ptr and whether it exists.
func lookup(root any, ptr string) (any, bool) {
	cur := root
	for _, tok := range splitPointer(ptr) {
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

// match is one value found by a pointer pattern, with its concrete pointer.
type match struct {
	ptr   string
	value any
}

// matchAll expands a pattern with "*" tokens against root, in document order.
func matchAll(root any, pattern string) []match {
	var out []match
	var walk func(cur any, toks []string, at string)
	walk = func(cur any, toks []string, at string) {
		if len(toks) == 0 {
			out = append(out, match{at, cur})
			return
		}
		tok, rest := toks[0], toks[1:]
		switch c := cur.(type) {
		case map[string]any:
			if tok == "*" {
				for _, k := range orderedKeys(c) {
					walk(c[k], rest, at+"/"+escapePointer(k))
				}
			} else if v, ok := c[tok]; ok {
				walk(v, rest, at+"/"+escapePointer(tok))
			}
		case []any:
			if tok == "*" {
				for i, v := range c {
					walk(v, rest, at+"/"+strconv.Itoa(i))
				}
			} else if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				walk(c[i], rest, at+"/"+tok)
			}
		}
	}
	walk(root, splitPointer(pattern), "")
	return out
}

// walkStrings calls fn for every string in the tree, object keys included
// (with the path of the value they name), with the tokens of its path;
// pointerOf turns them into a JSON pointer when one is needed.
func walkStrings(v any, fn func(path []string, s string)) {
	var path []string
	var walk func(v any)
	walk = func(v any) {
		switch c := v.(type) {
		case string:
			fn(path, c)
		case map[string]any:
			for k, e := range c {
				path = append(path, k)
				fn(path, k) // a key is text the templates may print too
				walk(e)
				path = path[:len(path)-1]
			}
		case []any:
			for i, e := range c {
				path = append(path, strconv.Itoa(i))
				walk(e)
				path = path[:len(path)-1]
			}
		}
	}
	walk(v)
}

func pointerOf(path []string) string {
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		b.WriteString(escapePointer(tok))
	}
	return b.String()
}
