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
	between   block = iota // no block is open
	paragraph              // a paragraph, which a setext underline may make a heading
	fenced                 // a fenced code block
	indented               // an indented code block
	html                   // an HTML block of types 2–5, which ends at a marker
)

// scan lists the document-level headings of src, less its opaque regions,
// reading it line by line as goldmark's block parser configured in
// goldmark.go reads it, without building a tree. It reports false for a line
// that may open an HTML block whose end depends on tag names (CommonMark's
// types 1, 6 and 7), and the caller asks goldmark. FuzzScanMatchesGoldmark
// and FuzzScanAroundRegions hold the two to the same result on every input
// the scan accepts.
func scan(src string, opaque []verbatim.Region) ([]heading, bool) {
	var out []heading
	state := between
	var fenceChar byte
	var fenceLen int
	var closing string // the marker that ends the open HTML block
	paraStart := -1    // the offset of the open paragraph's first line
	var paraLines []string

	closeParagraph := func() {
		paraStart, paraLines = -1, paraLines[:0]
	}
	for at := 0; ; {
		// An opaque region starts at a line start and ends before the line
		// break of the marker after it: the scan steps over it as if it
		// were not there.
		for len(opaque) > 0 && at >= opaque[0].Start {
			if at != opaque[0].Start {
				return nil, false
			}
			at, opaque = opaque[0].End, opaque[1:]
		}
		if at >= len(src) {
			break
		}
		end := strings.IndexByte(src[at:], '\n')
		next := at + end + 1
		if end < 0 {
			end, next = len(src)-at, len(src)
		}
		line := src[at:next] // with its line break, as goldmark reads it
		spaces := 0
		for spaces < len(line) && line[spaces] == ' ' {
			spaces++
		}
		rest := line[spaces:]
		blank := isBlank(rest)
		indent := spaces
		if len(rest) > 0 && rest[0] == '\t' {
			// A tab after at most three spaces reaches column 4: the line
			// is indented as code is, whatever follows.
			indent = max(indent, 4)
		}

		switch state {
		case fenced:
			if indent < 4 && closesFence(rest, fenceChar, fenceLen) {
				state = between
			}
			at = next
			continue
		case indented:
			if blank || indent >= 4 {
				at = next
				continue
			}
			state = between // the line opens a block of its own
		case html:
			if strings.Contains(line, closing) {
				state = between
			}
			at = next
			continue
		}

		if blank {
			if state == paragraph {
				closeParagraph()
			}
			state = between
			at = next
			continue
		}
		if indent >= 4 {
			if state != paragraph { // an indented line continues a paragraph
				state = indented
			} else {
				paraLines = append(paraLines, line)
			}
			at = next
			continue
		}
		opened := true
		switch rest[0] {
		case '#':
			level, title, ok := atx(rest)
			if !ok {
				opened = false
				break
			}
			if state == paragraph {
				closeParagraph()
			}
			if title != "" {
				out = append(out, heading{level: level, text: strings.TrimSpace(title), start: at})
			}
			state = between
		case '=', '-':
			if state != paragraph || !setextBar(rest) {
				opened = false
				break
			}
			level := 1
			if rest[0] == '-' {
				level = 2
			}
			out = append(out, heading{level: level, text: joinLines(paraLines), start: paraStart})
			closeParagraph()
			state = between
		case '`', '~':
			n, ok := fenceOpen(rest)
			if !ok {
				opened = false
				break
			}
			if state == paragraph {
				closeParagraph()
			}
			state, fenceChar, fenceLen = fenced, rest[0], n
		case '<':
			marker, known := htmlOpen(rest)
			if !known {
				return nil, false // types 1, 6 and 7 need goldmark's tag rules
			}
			if marker == "" {
				opened = false
				break
			}
			if state == paragraph {
				closeParagraph()
			}
			state, closing = html, marker
			if strings.Contains(line, marker) { // closed on its first line
				state = between
			}
		default:
			opened = false
		}
		if !opened {
			if state != paragraph {
				state, paraStart = paragraph, at
			}
			paraLines = append(paraLines, line)
		}
		at = next
	}
	return out, true
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

// htmlOpen reads a line (indentation removed) that starts with "<". It
// returns the marker that ends the HTML block the line opens (types 2–5 of
// CommonMark), "" when the line opens none, and known false for a line that
// may open a block whose end depends on tag names (types 1, 6, 7).
func htmlOpen(rest string) (marker string, known bool) {
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return "-->", true
	case strings.HasPrefix(rest, "<?"):
		return "?>", true
	case len(rest) > 2 && rest[1] == '!' && 'A' <= rest[2] && rest[2] <= 'Z':
		return ">", true
	case strings.HasPrefix(rest, "<![CDATA["):
		return "]]>", true
	case len(rest) > 1 && (rest[1] == '/' || 'a' <= rest[1]|0x20 && rest[1]|0x20 <= 'z'):
		return "", false
	}
	return "", true
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
