package input

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// readYAML reads the YAML that inputs are written in, straight into values:
// block mappings and sequences indented with spaces, plain, single- and
// double-quoted scalars on one line, literal block scalars (|, |-, |+),
// flow collections on one line ([a, b], {k: v}) and comments. It gives the
// values decodeYAML's reading of yaml.v3's nodes gives, without building
// the nodes, and reports false for anything else (anchors, tags, folded or
// multi-line scalars, a second document, a duplicate key, anything invalid):
// yaml.v3 then reads the input, and its errors stay the errors.
// FuzzReadYAMLMatchesYAMLv3 holds the two to the same values. plainText
// has made sure of what checkText checks, once for the whole input.
func (d *Document) readYAML(data []byte) (any, bool) {
	if !plainText(data) {
		return nil, false
	}
	r := &yamlReader{src: string(data), maxDepth: d.maxDepth}
	r.split()
	r.skip()
	if r.i >= len(r.lines) || r.lines[r.i].indent != 0 || isSeqItem(r.lines[r.i].text) {
		return nil, false // empty, a sequence or a scalar at the top: yaml.v3's to say
	}
	root, ok := r.mapping(0, 0)
	if r.skip(); !ok || r.i < len(r.lines) {
		return nil, false
	}
	for _, o := range r.objects {
		d.Record(o.m, o.keys)
	}
	return root, true
}

// plainText reports whether data holds only what the reader handles: UTF-8
// without tabs, carriage returns, other control characters, or characters
// that YAML reads as line breaks or a byte order mark.
func plainText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe {
			return false
		}
		i += size
	}
	return true
}

type yamlLine struct {
	indent int    // leading spaces
	text   string // the rest; "" for a blank line
	last   bool   // the last line, with no line break after it
}

type yamlReader struct {
	src      string
	lines    []yamlLine
	i        int // the line being read
	maxDepth int
	objects  []recorded // the key order of each mapping, recorded on success
}

type recorded struct {
	m    map[string]any
	keys []string
}

func (r *yamlReader) split() {
	n := strings.Count(r.src, "\n") + 1
	r.lines = make([]yamlLine, 0, n)
	for rest := r.src; ; {
		line, after, found := strings.Cut(rest, "\n")
		ind := 0
		for ind < len(line) && line[ind] == ' ' {
			ind++
		}
		r.lines = append(r.lines, yamlLine{indent: ind, text: line[ind:], last: !found})
		if !found {
			break
		}
		rest = after
	}
	if r.src == "" || strings.HasSuffix(r.src, "\n") {
		r.lines = r.lines[:len(r.lines)-1] // the empty line after the last break
	}
}

// skip moves past blank and comment lines.
func (r *yamlReader) skip() {
	for r.i < len(r.lines) && (r.lines[r.i].text == "" || r.lines[r.i].text[0] == '#') {
		r.i++
	}
}

// next is the indentation of the next line with content, or -1 at the end.
func (r *yamlReader) next() int {
	r.skip()
	if r.i >= len(r.lines) {
		return -1
	}
	if l := r.lines[r.i]; l.indent == 0 && (strings.HasPrefix(l.text, "---") || strings.HasPrefix(l.text, "...") || l.text[0] == '%') {
		return -2 // a document marker or directive: never read here
	}
	return r.lines[r.i].indent
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// block reads the node that starts on the next line with content, indented
// more than parent.
func (r *yamlReader) block(parent, depth int) (any, bool) {
	ind := r.next()
	if ind <= parent {
		return nil, false
	}
	if isSeqItem(r.lines[r.i].text) {
		return r.sequence(ind, depth)
	}
	return r.mapping(ind, depth)
}

// mapping reads the entries of a block mapping at indentation ind.
func (r *yamlReader) mapping(ind, depth int) (any, bool) {
	if depth >= r.maxDepth { // its values would stand deeper than the bound
		return nil, false
	}
	m := map[string]any{}
	var keys []string
	for {
		at := r.next()
		if at < ind {
			break
		}
		if at > ind {
			return nil, false
		}
		l := r.lines[r.i]
		key, rest, ok := mappingEntry(l.text)
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		v, ok := r.entryValue(rest, ind, depth, true)
		if !ok {
			return nil, false
		}
		m[key] = v
		keys = append(keys, key)
	}
	r.objects = append(r.objects, recorded{m, keys})
	return m, true
}

// sequence reads the items of a block sequence at indentation ind.
func (r *yamlReader) sequence(ind, depth int) (any, bool) {
	if depth >= r.maxDepth {
		return nil, false
	}
	list := []any{}
	for r.next() == ind && isSeqItem(r.lines[r.i].text) {
		l := r.lines[r.i]
		rest := strings.TrimPrefix(l.text, "-")
		inner := strings.TrimLeft(rest, " ")
		if _, _, isMap := mappingEntry(inner); isMap {
			// "- key: value" opens a mapping at the key's column.
			r.lines[r.i] = yamlLine{indent: ind + 1 + len(rest) - len(inner), text: inner, last: l.last}
			v, ok := r.mapping(r.lines[r.i].indent, depth+1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			continue
		}
		if isSeqItem(inner) {
			return nil, false
		}
		v, ok := r.entryValue(inner, ind, depth, false)
		if !ok {
			return nil, false
		}
		list = append(list, v)
	}
	if at := r.next(); at >= ind && at != -2 && !(at == ind && !isSeqItem(r.lines[r.i].text)) {
		return nil, false
	}
	return list, true
}

// entryValue reads the value after "key:" or "-" on the current line (rest,
// without the spaces before it) and on the lines below it, for an entry at
// indentation ind.
func (r *yamlReader) entryValue(rest string, ind, depth int, inMapping bool) (any, bool) {
	line := r.i
	r.i++
	if rest == "" || rest[0] == '#' {
		at := r.next()
		switch {
		case at > ind:
			return r.block(ind, depth+1)
		case at == ind && inMapping && isSeqItem(r.lines[r.i].text):
			return r.sequence(ind, depth+1) // a sequence may stand at its key's indentation
		}
		return nil, true
	}
	var v any
	var ok bool
	switch rest[0] {
	case '|':
		v, ok = r.literal(rest, ind, r.lines[line].last)
	case '[', '{':
		var end int
		v, end, ok = flowNode(rest, 0, depth+1, r)
		if ok {
			ok = onlyComment(rest[end:])
		}
	case '"', '\'':
		var end int
		v, end, ok = quoted(rest, 0)
		if ok {
			ok = onlyComment(rest[end:])
		}
	default:
		text := plainEnd(rest)
		if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") || strings.ContainsAny(text[:1], "?:,]}&*!>%@`") ||
			text[0] == '-' && (len(text) == 1 || text[1] == ' ') {
			return nil, false
		}
		v, ok = resolvePlain(text)
	}
	// A line below indented more would continue the scalar, or be invalid.
	if !ok || r.next() > ind {
		return nil, false
	}
	return v, true
}

// mappingEntry splits "key: rest" or "key:", for a plain key of the usual
// kind: no indicator at its start, no quote, no flow character.
func mappingEntry(text string) (key, rest string, ok bool) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case ':':
			if i+1 < len(text) && text[i+1] != ' ' {
				continue
			}
			key = text[:i]
			if key == "" || len(key) > maxSimpleKey || key[len(key)-1] == ' ' || strings.ContainsAny(key[:1], "-?:,[]{}#&*!|>'\"%@`") || key == "<<" {
				return "", "", false
			}
			return key, strings.TrimLeft(text[i+1:], " "), true
		case '#':
			if i > 0 && text[i-1] == ' ' {
				return "", "", false
			}
		case ',', '[', ']', '{', '}', '"', '\'':
			return "", "", false
		}
	}
	return "", "", false
}

// maxSimpleKey bounds the keys the reader takes: YAML allows a key without
// "?" only up to 1024 characters, and yaml.v3 says what happens past that.
const maxSimpleKey = 1000

// literal reads a literal block scalar whose header is on the current line.
func (r *yamlReader) literal(header string, ind int, headerLast bool) (any, bool) {
	chomp := byte(0)
	h := header[1:]
	if h != "" && (h[0] == '-' || h[0] == '+') {
		chomp, h = h[0], h[1:]
	}
	if !onlyComment(h) || headerLast {
		return nil, false
	}
	// The content's indentation is that of its first line; a blank line
	// before it must be empty, and a blank line in it no longer than it.
	var b strings.Builder
	blockInd := -1
	trailing := 0 // line breaks of the blank lines at the end so far
	for ; r.i < len(r.lines); r.i++ {
		l := r.lines[r.i]
		if l.text == "" {
			if blockInd < 0 && l.indent > 0 || blockInd >= 0 && l.indent > blockInd {
				return nil, false
			}
			if l.last {
				return nil, false
			}
			trailing++
			continue
		}
		if blockInd < 0 {
			if l.indent <= ind {
				return nil, false // no content
			}
			blockInd = l.indent
		} else if l.indent < blockInd {
			break
		}
		if l.last {
			return nil, false // the last line has no line break: yaml.v3's to read
		}
		for ; trailing > 0; trailing-- {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", l.indent-blockInd))
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if blockInd < 0 {
		return nil, false
	}
	s := b.String()
	switch chomp {
	case '-':
		s = strings.TrimSuffix(s, "\n")
	case '+':
		s += strings.Repeat("\n", trailing)
	}
	return s, true
}

// plainEnd is a plain scalar's text on its line: up to a comment, without
// the spaces after it.
func plainEnd(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ")
}

// onlyComment reports whether s holds nothing but spaces and a comment.
func onlyComment(s string) bool {
	t := strings.TrimLeft(s, " ")
	return t == "" || (t[0] == '#' && len(t) < len(s))
}

// resolvePlain gives a plain scalar's value as yaml.v3 resolves it, for the
// scalars whose value needs no more than a glance: text, true, false, null
// and decimal integers. Other numbers, dates and the like are left to it.
func resolvePlain(s string) (any, bool) {
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch s {
		case "true", "True", "TRUE":
			return true, true
		case "false", "False", "FALSE":
			return false, true
		case "~", "null", "Null", "NULL":
			return nil, true
		}
	case '+', '.':
		return nil, false
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		digits := strings.TrimPrefix(s, "-")
		if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) || strings.Trim(digits, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	return s, true
}

// quoted reads a single- or double-quoted scalar that starts at s[i] and
// ends on the same line: its value, and the offset after it.
func quoted(s string, i int) (any, int, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == q && q == '\'' && j+1 < len(s) && s[j+1] == '\'':
			b.WriteByte('\'')
			j++
		case c == q:
			return b.String(), j + 1, true
		case c == '\\' && q == '"':
			if j+1 >= len(s) {
				return nil, 0, false
			}
			j++
			switch s[j] {
			case '"', '\\':
				b.WriteByte(s[j])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if j+4 >= len(s) {
					return nil, 0, false
				}
				n, err := strconv.ParseUint(s[j+1:j+5], 16, 32)
				if err != nil || (n >= 0xd800 && n < 0xe000) || n == 0 {
					return nil, 0, false
				}
				b.WriteRune(rune(n))
				j += 4
			default:
				return nil, 0, false
			}
		default:
			b.WriteByte(c)
		}
	}
	return nil, 0, false // closed on another line, or never
}

// flowNode reads a flow collection or scalar at s[i], on one line.
func flowNode(s string, i, depth int, r *yamlReader) (any, int, bool) {
	if depth > r.maxDepth || i >= len(s) {
		return nil, 0, false
	}
	switch s[i] {
	case '[':
		return flowSequence(s, i, depth, r)
	case '{':
		return flowMapping(s, i, depth, r)
	case '"', '\'':
		return quoted(s, i)
	}
	return flowPlain(s, i)
}

// flowSequence reads a flow sequence, [a, b], whose bracket is s[i].
func flowSequence(s string, i, depth int, r *yamlReader) (any, int, bool) {
	list := []any{}
	i = skipSpaces(s, i+1)
	if i < len(s) && s[i] == ']' {
		return list, i + 1, true
	}
	for {
		v, end, ok := flowNode(s, i, depth+1, r)
		if !ok {
			return nil, 0, false
		}
		list = append(list, v)
		var closed bool
		if i, closed, ok = flowSeparator(s, end, ']'); !ok {
			return nil, 0, false
		} else if closed {
			return list, i, true
		}
	}
}

// flowMapping reads a flow mapping, {k: v}, whose brace is s[i], and
// records its keys' order in r. Its keys are plain ones of the usual
// kind, each once; anything else is left to yaml.v3.
func flowMapping(s string, i, depth int, r *yamlReader) (any, int, bool) {
	m := map[string]any{}
	var keys []string
	i = skipSpaces(s, i+1)
	if i < len(s) && s[i] == '}' {
		r.objects = append(r.objects, recorded{m, keys})
		return m, i + 1, true
	}
	for {
		end := i
		for end < len(s) && !strings.ContainsRune(",[]{}:#'\"?", rune(s[end])) {
			end++
		}
		key := s[i:end]
		if key == "" || key == "<<" || len(key) > maxSimpleKey || key[len(key)-1] == ' ' || end+1 >= len(s) || s[end] != ':' || s[end+1] != ' ' ||
			strings.ContainsAny(key[:1], "-?!&*|>%@`") {
			return nil, 0, false
		}
		if _, dup := m[key]; dup {
			return nil, 0, false
		}
		v, after, ok := flowNode(s, skipSpaces(s, end+1), depth+1, r)
		if !ok {
			return nil, 0, false
		}
		m[key] = v
		keys = append(keys, key)
		var closed bool
		if i, closed, ok = flowSeparator(s, after, '}'); !ok {
			return nil, 0, false
		} else if closed {
			r.objects = append(r.objects, recorded{m, keys})
			return m, i, true
		}
	}
}

// flowPlain reads a plain scalar inside a flow collection, at s[i]: it
// ends at a flow indicator (yaml.v3 counts "?" as one), at ": " or at a
// comment.
func flowPlain(s string, i int) (any, int, bool) {
	end := i
	for end < len(s) {
		c := s[end]
		if c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == '?' ||
			(c == ':' && (end+1 >= len(s) || strings.IndexByte(" ,[]{}", s[end+1]) >= 0)) ||
			(c == '#' && end > i && s[end-1] == ' ') {
			break
		}
		end++
	}
	text := strings.TrimRight(s[i:end], " ")
	if text == "" || strings.ContainsAny(text[:1], "-?:&*!|>%@`#") {
		return nil, 0, false
	}
	v, ok := resolvePlain(text)
	return v, end, ok
}

// flowSeparator reads what follows an entry of a flow collection, from s[i]:
// a comma and the next entry's start, or the closing bracket and the offset
// after it (closed). A comma before the bracket or another comma is left
// to yaml.v3.
func flowSeparator(s string, i int, closer byte) (next int, closed, ok bool) {
	i = skipSpaces(s, i)
	switch {
	case i >= len(s):
		return 0, false, false
	case s[i] == closer:
		return i + 1, true, true
	case s[i] != ',':
		return 0, false, false
	}
	i = skipSpaces(s, i+1)
	if i < len(s) && (s[i] == closer || s[i] == ',') {
		return 0, false, false
	}
	return i, false, true
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}
