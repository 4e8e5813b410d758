package outline

import (
	"strings"

	"github.com/promptsmith/promptsmith/engine/verbatim"
)

// heading is what a parse of the markdown finds: a heading's level, its
// text, and the offset of the line it starts on.
type heading struct {
	level int
	text  string
	start int
}

// block is the kind of block a line scan is inside.
type block int

const (
	between     block = iota // no block is open
	paragraph                // a paragraph, which a setext underline may make a heading
	fenced                   // a fenced code block
	indented                 // an indented code block
	html                     // an HTML block of types 2–5, which ends at a marker
	htmlToBlank              // an HTML block of types 6–7, which ends at a blank line
)

// scan lists the document-level headings of src, less its opaque regions,
// reading it line by line as goldmark's block parser configured in
// goldmark.go reads it, without building a tree. It reports false for a line
// that goldmark's regular expressions for HTML blocks must judge (a tag with
// attributes, the raw-text tags of type 1), and the caller asks goldmark.
// FuzzScanMatchesGoldmark
// and FuzzScanAroundRegions hold the two to the same result on every input
// the scan accepts.
func scan(src string, opaque []verbatim.Region) ([]heading, bool) {
	out, _, _, ok := scanTo(src, opaque, -1)
	return out, ok
}

// scanTo is scan, stopped at the line that starts at offset stop (-1: at
// the end): the headings before it, the block open there and the offset of
// the line that opened that block.
func scanTo(src string, opaque []verbatim.Region, stop int) ([]heading, block, int, bool) {
	s := &scanner{paraStart: -1}
	for at := 0; ; {
		// An opaque region starts at a line start and ends before the line
		// break of the marker after it: the scan steps over it as if it
		// were not there.
		for len(opaque) > 0 && at >= opaque[0].Start {
			if at != opaque[0].Start {
				return nil, between, 0, false
			}
			at, opaque = opaque[0].End, opaque[1:]
		}
		if at == stop {
			return s.out, s.state, s.opener, true
		}
		if at >= len(src) {
			break
		}
		l := readLine(src, at)
		if !s.continues(l) && !s.starts(l) {
			return nil, between, 0, false // a tag whose block goldmark's own rules must tell
		}
		at = l.next
	}
	return s.out, s.state, s.opener, stop < 0 // a stop that is no line start is not reached
}

// scanner is the state of a scan between two lines: the headings found,
// the block open and what ends it.
type scanner struct {
	out       []heading
	state     block
	opener    int // the offset of the line that opened the block the scan is in
	fenceChar byte
	fenceLen  int
	closing   string // the marker that ends the open HTML block
	paraStart int    // the offset of the open paragraph's first line; -1 for none
	paraLines []string
}

// line is a line of the source, with its line break, as goldmark reads it.
type line struct {
	at, next int    // its offset, and the next line's
	text     string // the whole line
	rest     string // the line after its leading spaces
	indent   int    // its indentation in columns, 4 for a tab within the first three
	blank    bool
}

// readLine reads the line of src that starts at offset at.
func readLine(src string, at int) line {
	end := strings.IndexByte(src[at:], '\n')
	next := at + end + 1
	if end < 0 {
		next = len(src)
	}
	l := line{at: at, next: next, text: src[at:next]}
	spaces := 0
	for spaces < len(l.text) && l.text[spaces] == ' ' {
		spaces++
	}
	l.rest = l.text[spaces:]
	l.blank = isBlank(l.rest)
	l.indent = spaces
	if len(l.rest) > 0 && l.rest[0] == '\t' {
		// A tab after at most three spaces reaches column 4: the line
		// is indented as code is, whatever follows.
		l.indent = max(l.indent, 4)
	}
	return l
}

// continues reports whether the open code or HTML block takes line l
// whole; when l ends the block without being part of it, the scan is left
// between blocks for starts to read l.
func (s *scanner) continues(l line) bool {
	switch s.state {
	case fenced:
		if l.indent < 4 && closesFence(l.rest, s.fenceChar, s.fenceLen) {
			s.state = between
		}
		return true
	case indented:
		if l.blank || l.indent >= 4 {
			return true
		}
		s.state = between // the line opens a block of its own
	case html:
		if strings.Contains(l.text, s.closing) {
			s.state = between
		}
		return true
	case htmlToBlank:
		if !l.blank {
			return true
		}
		s.state = between // the blank line ends it, and is a blank line
	}
	return false
}

// starts reads a line outside code and HTML blocks: a blank line, an
// indented one, a line that opens a block, or one of a paragraph. It
// reports false for a line goldmark's own rules must judge.
func (s *scanner) starts(l line) bool {
	if l.blank {
		if s.state == paragraph {
			s.closeParagraph()
		}
		s.state = between
		return true
	}
	if l.indent >= 4 {
		if s.state != paragraph { // an indented line continues a paragraph
			if s.state != indented {
				s.opener = l.at
			}
			s.state = indented
		} else {
			s.paraLines = append(s.paraLines, l.text)
		}
		return true
	}
	opened, known := s.opens(l)
	if !known {
		return false
	}
	if !opened {
		if s.state != paragraph {
			s.state, s.paraStart = paragraph, l.at
		}
		s.paraLines = append(s.paraLines, l.text)
	}
	return true
}

// opens reads a line that may open a block: an ATX heading, a setext
// underline, a code fence or an HTML block. It reports whether it opened
// one, and false for known where goldmark's own rules must tell.
func (s *scanner) opens(l line) (opened, known bool) {
	rest := l.rest
	switch rest[0] {
	case '#':
		level, title, ok := atx(rest)
		if !ok {
			return false, true
		}
		s.endParagraph()
		if title != "" {
			s.out = append(s.out, heading{level: level, text: strings.TrimSpace(title), start: l.at})
		}
		s.state = between
	case '=', '-':
		if s.state != paragraph || !setextBar(rest) {
			return false, true
		}
		level := 1
		if rest[0] == '-' {
			level = 2
		}
		s.out = append(s.out, heading{level: level, text: joinLines(s.paraLines), start: s.paraStart})
		s.closeParagraph()
		s.state = between
	case '`', '~':
		n, ok := fenceOpen(rest)
		if !ok {
			return false, true
		}
		s.endParagraph()
		s.state, s.fenceChar, s.fenceLen, s.opener = fenced, rest[0], n, l.at
	case '<':
		block, marker, known := htmlOpen(rest, s.state == paragraph)
		if !known || !block {
			return false, known
		}
		s.endParagraph()
		s.state, s.closing, s.opener = html, marker, l.at
		if marker == "" {
			s.state = htmlToBlank
		} else if strings.Contains(l.text, marker) { // closed on its first line
			s.state = between
		}
	default:
		return false, true
	}
	return true, true
}

// endParagraph closes the open paragraph, if one is.
func (s *scanner) endParagraph() {
	if s.state == paragraph {
		s.closeParagraph()
	}
}

func (s *scanner) closeParagraph() {
	s.paraStart, s.paraLines = -1, s.paraLines[:0]
}

// isBlank reports whether s holds only goldmark's spaces: space, tab, CR, LF.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// atx reads an ATX heading line (indentation removed): its level and text,
// without the closing run of #. ok is false when the line is not a heading;
// a heading with no text has title "" and still ends a paragraph.
func atx(rest string) (level int, title string, ok bool) {
	for level < len(rest) && rest[level] == '#' {
		level++
	}
	if level > 6 {
		return 0, "", false
	}
	if level == len(rest) {
		return level, "", true
	}
	if !isSpace(rest[level]) {
		return 0, "", false
	}
	c := strings.TrimRightFunc(strings.TrimLeftFunc(rest[level:], isSpaceRune), isSpaceRune)
	if c == "" {
		return level, "", true
	}
	stop := len(c)
	i := stop - 1
	for c[i] == '#' && i > 0 {
		i--
	}
	if i == 0 && c[0] == '#' {
		return level, "", true
	}
	if i != stop-1 && isSpace(c[i]) {
		stop = len(strings.TrimRightFunc(c[:i], isSpaceRune))
	}
	return level, c[:stop], true
}

func isSpaceRune(r rune) bool { return r < 0x80 && isSpace(byte(r)) }

// setextBar reports whether a line (indentation removed) underlines the
// paragraph above it: a run of = or of -, then only spaces.
func setextBar(rest string) bool {
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	return isBlank(rest[n:])
}

// fenceOpen reads an opening code fence: three or more ` or ~, and for `
// an info string without a backtick.
func fenceOpen(rest string) (int, bool) {
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 {
		return 0, false
	}
	if c == '`' && strings.IndexByte(rest[n:], '`') >= 0 {
		return 0, false
	}
	return n, true
}

// closesFence reports whether a line (indentation removed) closes a fence
// opened with n of c.
func closesFence(rest string, c byte, n int) bool {
	i := 0
	for i < len(rest) && rest[i] == c {
		i++
	}
	return i >= n && isBlank(rest[i:])
}

// htmlOpen reads a line (indentation removed) that starts with "<", as
// goldmark's HTML block parser does: whether it opens a block, and the marker
// that ends it (types 2–5 of CommonMark) or "" for a block that ends at a
// blank line (types 6 and 7). Prompts mark their parts with tags of their
// own (<context>, </instructions>), which are type 7 when they stand alone
// on a line. known is false where goldmark's regular expressions decide: a
// tag with attributes, the raw-text tags of type 1, a carriage return.
func htmlOpen(rest string, inParagraph bool) (block bool, marker string, known bool) {
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return true, "-->", true
	case strings.HasPrefix(rest, "<?"):
		return true, "?>", true
	case len(rest) > 2 && rest[1] == '!' && 'A' <= rest[2] && rest[2] <= 'Z':
		return true, ">", true
	case strings.HasPrefix(rest, "<![CDATA["):
		return true, "]]>", true
	}
	i := 1
	if i < len(rest) && rest[i] == '/' {
		i++
		for i < len(rest) && rest[i] == ' ' {
			i++
		}
	}
	if i >= len(rest) || !isLetter(rest[i]) {
		return false, "", true // not a tag
	}
	if strings.IndexByte(rest, '\r') >= 0 {
		return false, "", false
	}
	start := i
	for i < len(rest) && (isLetter(rest[i]) || '0' <= rest[i] && rest[i] <= '9' || rest[i] == '-') {
		i++
	}
	name := strings.ToLower(rest[start:i])
	after := strings.TrimSuffix(rest[i:], "\n")
	switch {
	case name == "script" || name == "pre" || name == "style" || name == "textarea":
		return false, "", false
	case blockTag(name):
		if after == "" || after[0] == ' ' || after[0] == '>' || strings.HasPrefix(after, "/>") {
			return true, "", true // type 6, which may interrupt a paragraph
		}
		return false, "", false
	case inParagraph:
		return false, "", true // type 7 cannot interrupt a paragraph
	}
	// Type 7 is a tag alone on its line: attributes need white space after
	// the name, and any other character after it makes the line text.
	t := strings.TrimLeft(after, " ")
	switch {
	case strings.ContainsAny(after, "\t\v\f"):
		return false, "", false // white space other than a space, anywhere (<a \tb>): goldmark's regular expression says
	case t != "" && len(t) < len(after) && (isLetter(t[0]) || t[0] == '_' || t[0] == ':'):
		return false, "", false // attributes: goldmark's regular expression says
	case len(after) > 0 && after[0] != ' ' && after[0] != '>' && after[0] != '/' && after[0] <= ' ':
		return false, "", false // white space other than a space may start attributes too
	case strings.HasPrefix(t, "/>"):
		t = t[2:]
	case strings.HasPrefix(t, ">"):
		t = t[1:]
	default:
		return false, "", true
	}
	if strings.Trim(t, " ") != "" {
		return false, "", true
	}
	return true, "", true // type 7: a tag alone on its line
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// blockTag reports whether name is one of CommonMark's block-level tags,
// which open an HTML block of type 6.
func blockTag(name string) bool {
	switch name {
	case "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center", "col",
		"colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
		"footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr",
		"html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "meta", "nav", "noframes", "ol",
		"optgroup", "option", "p", "param", "search", "section", "summary", "table", "tbody", "td", "tfoot",
		"th", "thead", "title", "tr", "track", "ul":
		return true
	}
	return false
}

// joinLines is a setext heading's text: its lines trimmed, joined by a space.
func joinLines(lines []string) string {
	if len(lines) == 1 {
		return strings.TrimSpace(lines[0])
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strings.TrimSpace(l)
	}
	return strings.Join(parts, " ")
}
