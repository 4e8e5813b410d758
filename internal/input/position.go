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
// The end of each large value a call skips (a 1 MiB prompt beside the
// path) is remembered, so that the next call, for the next of an error's
// violations, jumps over it: the calls of one error read the input about
// once in all, not once each. A YAML input is parsed into its node tree on
// the first call, and that tree kept for the others.
func (d *Document) Position(ptr string) string {
	d.positionMu.Lock()
	defer d.positionMu.Unlock()
	toks := tokens(ptr)
	trimmed := bytes.TrimLeft(d.Data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if d.jsonSkips == nil {
			d.jsonSkips = map[int]int{}
		}
		off, ok := locateJSON(d.Data, len(d.Data)-len(trimmed), toks, d.jsonSkips)
		if !ok {
			return ""
		}
		line, col := d.lineCol(off)
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

// lineCol is the line and column of the byte at off in data.
func lineCol(data []byte, off int) (int, int) {
	m := lineMark{line: 1, lastNL: -1}.advance(data, min(off, len(data)))
	return m.line, m.off - m.lastNL
}

// lineMark is a byte offset with its line, and the offset of the last line
// break before it (-1 for none).
type lineMark struct{ off, line, lastNL int }

// advance moves m forward to off, counting line breaks with bytes.Count
// (SIMD) and looking back for the last one only when there is one.
func (m lineMark) advance(data []byte, off int) lineMark {
	seg := data[m.off:off]
	if n := bytes.Count(seg, []byte("\n")); n > 0 {
		m.line += n
		m.lastNL = m.off + bytes.LastIndexByte(seg, '\n')
	}
	m.off = off
	return m
}

// lineCol is lineCol for the document's input, going on from the offset
// asked for last when off lies after it: an error's positions come mostly
// in the order of the input, and then cost one reading of it in all.
func (d *Document) lineCol(off int) (int, int) {
	off = min(off, len(d.Data))
	m := lineMark{line: 1, lastNL: -1}
	if d.lastLine.line > 0 && d.lastLine.off <= off {
		m = d.lastLine
	}
	m = m.advance(d.Data, off)
	d.lastLine = m
	return m.line, m.off - m.lastNL
}

// locateJSON follows toks from the value at start and returns the offset of
// the deepest value it reached (its key's, for an object's member), and
// false when it reached none. It reads each byte once at most; skips holds
// the ends of large values skipped before, and receives those it skips.
func locateJSON(data []byte, start int, toks []string, skips map[int]int) (int, bool) {
	s := jsonScanner{data: data, pos: start, skips: skips}
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
	data  []byte
	pos   int
	skips map[int]int // start → end of the values of skipLarge bytes or more skipped so far
}

// skipLarge is the size from which a skipped value's end is remembered:
// large enough that the entries are few (a byte in 512 of the input at
// most), small enough that what is read again is little.
const skipLarge = 512

func (s *jsonScanner) skipSpace() { s.pos = skipJSONSpace(s.data, s.pos) }

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
		if !s.skipValue() || !s.comma() {
			return 0, false
		}
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
		if !s.skipValue() || !s.comma() {
			return 0, false
		}
	}
}

func (s *jsonScanner) skipString() bool {
	_, _, ok := s.string()
	return ok
}

// string reads the quoted string at s.pos and returns its body, raw, and
// whether it holds escapes. It looks for quotes only, and counts the
// backslashes before one: a 1 MiB prompt is skipped at memchr's speed.
func (s *jsonScanner) string() (body []byte, escaped, ok bool) {
	start := s.pos + 1
	for i := start; i < len(s.data); {
		j := bytes.IndexByte(s.data[i:], '"')
		if j < 0 {
			return nil, false, false
		}
		i += j
		backslashes := 0
		for k := i - 1; k >= start && s.data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 1 { // an escaped quote
			i++
			continue
		}
		s.pos = i + 1
		body = s.data[start:i]
		return body, bytes.IndexByte(body, '\\') >= 0, true
	}
	return nil, false, false
}

// skipValue moves s past the value at s.pos, however deep, with a counter
// of open brackets rather than recursion.
func (s *jsonScanner) skipValue() bool {
	start := s.pos
	if end, ok := s.skips[start]; ok {
		s.pos = end
		return true
	}
	if !s.skipValueOnce() {
		return false
	}
	if s.skips != nil && s.pos-start >= skipLarge {
		s.skips[start] = s.pos
	}
	return true
}

func (s *jsonScanner) skipValueOnce() bool {
	depth := 0
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case '"':
			if end, ok := s.skips[s.pos]; ok { // a large string inside a value
				s.pos = end
			} else if start := s.pos; !s.skipString() {
				return false
			} else if s.skips != nil && s.pos-start >= skipLarge {
				s.skips[start] = s.pos
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

// comma moves past the comma after a value, and reports whether there is one.
func (s *jsonScanner) comma() bool {
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ',' {
		return false
	}
	s.pos++
	return true
}
