package input

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Position says where the value at a JSON pointer is written in the input,
// as name:line:col, or where the nearest enclosing value is (a missing field
// is reported where its object is). For JSON the position is that of the
// member's key, or of an array element's value; the top-level object of a
// JSON input has none, and gives "".
//
// Nothing is kept from decoding for this: only an error needs a position,
// and renders that fail are few. Each call reads the input again, once at
// most, following the pointer's tokens and skipping every value beside its
// path: time linear in the input's size and memory linear in the pointer's,
// whatever the nesting. (An index of every value's pointer costs memory
// quadratic in the depth: a 20 KB input nested 10,000 levels took 400 MB.)
// A YAML input is parsed into its node tree on the first call, and that
// tree kept for the others.
func (d *Document) Position(ptr string) string {
	toks := tokens(ptr)
	trimmed := bytes.TrimLeft(d.Data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		off, ok := locateJSON(d.Data, len(d.Data)-len(trimmed), toks)
		if !ok {
			return ""
		}
		line, col := lineCol(d.Data, off)
		return fmt.Sprintf("%s:%d:%d", d.Name, line, col)
	}
	if d.yamlTree == nil {
		d.yamlTree = &yaml.Node{}
		if yaml.Unmarshal(d.Data, d.yamlTree) != nil {
			d.yamlTree.Kind = 0
		}
	}
	n := locateYAML(d.yamlTree, toks)
	if n == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", d.Name, n.Line, n.Column)
}

// tokens splits a pointer into its unescaped tokens without copying them
// when they hold no escapes. "" is the root; so is anything that does not
// start with "/"; "/" is the member whose key is "".
func tokens(ptr string) []string {
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		if strings.Contains(t, "~") {
			toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
		}
	}
	return toks
}

// arrayIndex reads a token as an array index, written as a pointer writes
// one: digits, no sign, no leading zero.
func arrayIndex(tok string) (int, bool) {
	i, err := strconv.Atoi(tok)
	return i, err == nil && i >= 0 && strconv.Itoa(i) == tok
}

func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// locateJSON follows toks from the value at start and returns the offset of
// the deepest value it reached (its key's, for an object's member), and
// false when it reached none. It reads each byte once at most.
func locateJSON(data []byte, start int, toks []string) (int, bool) {
	s := jsonScanner{data: data, pos: start}
	off, found := 0, false
	for _, tok := range toks {
		s.skipSpace()
		if s.pos >= len(data) {
			break
		}
		var at int
		var ok bool
		switch data[s.pos] {
		case '{':
			at, ok = s.member(tok)
		case '[':
			at, ok = s.element(tok)
		}
		if !ok {
			break
		}
		off, found = at, true
	}
	return off, found
}

// jsonScanner skips through JSON without decoding it: Position's reader.
// The input was decoded before, so it is valid, but the scanner stops
// without harm where it is not.
type jsonScanner struct {
	data []byte
	pos  int
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// member finds the member tok of the object at s.pos, leaves s at its value
// and returns the offset of its key.
func (s *jsonScanner) member(tok string) (int, bool) {
	s.pos++ // {
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return 0, false
		}
		keyAt := s.pos
		key, escaped, ok := s.string()
		if !ok {
			return 0, false
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return 0, false
		}
		s.pos++
		s.skipSpace()
		match := string(key) == tok
		if escaped {
			k, _, err := unescape(key)
			match = err == nil && k == tok
		}
		if match {
			return keyAt, true
		}
		if !s.skipValue() {
			return 0, false
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ',' {
			return 0, false
		}
		s.pos++
	}
}

// element finds the element tok of the array at s.pos, leaves s at it and
// returns its offset.
func (s *jsonScanner) element(tok string) (int, bool) {
	want, ok := arrayIndex(tok)
	if !ok {
		return 0, false
	}
	s.pos++ // [
	for i := 0; ; i++ {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] == ']' {
			return 0, false
		}
		if i == want {
			return s.pos, true
		}
		if !s.skipValue() {
			return 0, false
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ',' {
			return 0, false
		}
		s.pos++
	}
}

// string reads the quoted string at s.pos and returns its body, raw, and
// whether it holds escapes.
func (s *jsonScanner) string() (body []byte, escaped, ok bool) {
	start := s.pos + 1
	for i := start; i < len(s.data); {
		j := bytes.IndexAny(s.data[i:], `"\`)
		if j < 0 {
			return nil, false, false
		}
		i += j
		if s.data[i] == '\\' {
			escaped = true
			i += 2
			continue
		}
		s.pos = i + 1
		return s.data[start:i], escaped, true
	}
	return nil, false, false
}

// skipValue moves s past the value at s.pos, however deep, with a counter
// of open brackets rather than recursion.
func (s *jsonScanner) skipValue() bool {
	depth := 0
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case '"':
			if _, _, ok := s.string(); !ok {
				return false
			}
		case '{', '[':
			depth++
			s.pos++
		case '}', ']':
			depth--
			if depth < 0 {
				return false
			}
			s.pos++
		default:
			if depth == 0 { // a number or a literal: up to the next delimiter
				for s.pos < len(s.data) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(s.data[s.pos])) {
					s.pos++
				}
				return true
			}
			s.pos++
		}
		if depth == 0 {
			return true
		}
	}
	return false
}

// locateYAML follows toks from the document's root and returns the node
// whose position is reported: a mapping's key node for a member, the
// element for an array element, the root value for the root; nil for a
// document that has none. An alias is not followed: a value inside one is
// reported where the alias stands.
func locateYAML(doc *yaml.Node, toks []string) *yaml.Node {
	if doc.Kind == 0 {
		return nil
	}
	n, at := doc, doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n, at = n.Content[0], n.Content[0]
	}
	for _, tok := range toks {
		var next, pos *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Value == tok {
					next, pos = n.Content[i+1], k
					break
				}
			}
		case yaml.SequenceNode:
			if i, ok := arrayIndex(tok); ok && i < len(n.Content) {
				next, pos = n.Content[i], n.Content[i]
			}
		}
		if next == nil {
			break
		}
		n, at = next, pos
	}
	return at
}

// WalkStrings calls fn for every string in the tree, object keys included
// (with the path of the value they name), with the tokens of its path;
// pointer.Join turns them into a JSON pointer when one is needed.
func WalkStrings(v any, fn func(path []string, s string)) {
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
