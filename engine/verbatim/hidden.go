package verbatim

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A model reads a prompt as its characters look, not as its bytes are:
// "<!-- PARENT PROMPT\u200b START -->" is not a marker to Extract, but a
// model reading the prompt sees a second parent prompt begin. Text that
// reads as a marker once its invisible characters are dropped, and its
// other spaces read as spaces, is refused like marker text itself.

// invisible reports whether r is a character that shows nothing where it
// stands: a format character (zero-width spaces and joiners, bidi
// controls, the byte order mark, soft hyphen, tags), a variation
// selector, another default-ignorable code point (Hangul fillers, the
// combining grapheme joiner), or a control character other than a line
// feed or a tab.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Cc, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// plain reports whether s is printable ASCII, line feeds and tabs only:
// text in which nothing can hide (most input strings).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			return false
		}
	}
	return true
}

// looks is what r looks like to a reader: nothing for an invisible
// character, a space for any other space, else r itself.
func looks(r rune) (rune, bool) {
	switch {
	case invisible(r):
		return 0, false
	case r != '\n' && r != '\t' && unicode.IsSpace(r):
		return ' ', true
	}
	return r, true
}

// seen is s as a reader sees it: invisible characters dropped and every
// other space a space. Runs of printable ASCII are copied whole.
func seen(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && plainByte(s[j]) {
			j++
		}
		b.WriteString(s[i:j])
		if j == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if r, ok := looks(r); ok {
			b.WriteRune(r)
		}
		i = j + size
	}
	return b.String()
}

// plainByte reports whether c is printable ASCII, a line feed or a tab.
func plainByte(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' }

// cursor maps offsets of seen(s) back to s, moving forward only: the
// places it is asked for come in order, so the whole string is walked at
// most once, and nothing is kept per byte.
type cursor struct {
	s    string
	i, n int // s[:i] is seen as n bytes
}

// at is the offset in s of the character that byte k of seen(s) comes
// from.
func (c *cursor) at(k int) int {
	for c.i < len(c.s) {
		r, size := utf8.DecodeRuneInString(c.s[c.i:])
		w := 0
		if r, ok := looks(r); ok {
			w = utf8.RuneLen(r)
		}
		if c.n+w > k {
			return c.i
		}
		c.n += w
		c.i += size
	}
	return len(c.s)
}

// hidden is marker text that is not the marker's bytes: where it stands in
// the string (byte offset and line), and the first character in it that
// is not the marker's.
type hidden struct {
	Marker string
	At     int
	Line   int
	Rune   rune
}

// hiddenMarker finds the first place in s that reads as marker text of m
// without being it, or reports false. It costs a copy of s, and none for
// printable ASCII, where nothing can hide.
func (m Markers) hiddenMarker(s string) (hidden, bool) {
	if plain(s) && plain(m.Start) && plain(m.End) {
		return hidden{}, false // what is seen is what is there
	}
	text := seen(s)
	var first hidden
	found := false
	for _, marker := range []string{m.Start, m.End} {
		look := seen(marker)
		if look == "" || strings.Count(text, look) == strings.Count(s, marker) {
			// Each marker in s is one in what is seen; none is hidden
			// unless more are seen. Most strings end here.
			continue
		}
		c := &cursor{s: s}
		for i := 0; ; {
			j := strings.Index(text[i:], look)
			if j < 0 {
				break
			}
			at := c.at(i + j)
			end := c.at(i + j + len(look) - 1)
			_, size := utf8.DecodeRuneInString(s[end:])
			if span := s[at : end+size]; span != marker {
				if !found || at < first.At {
					first, found = hidden{Marker: marker, At: at, Line: 1 + strings.Count(s[:at], "\n"), Rune: odd(span, marker)}, true
				}
				break // the first of this marker is found
			}
			i += j + len(look)
		}
	}
	return first, found
}

// odd is the first character of span, text that reads as marker, that
// does not stand where the marker has it.
func odd(span, marker string) rune {
	for i, r := range span {
		if i >= len(marker) || !strings.HasPrefix(marker[i:], string(r)) {
			return r
		}
	}
	return utf8.RuneError
}

// CodePoint names r as U+XXXX, with its name where it is a character
// commonly used to hide text.
func CodePoint(r rune) string {
	s := fmt.Sprintf("U+%04X", r)
	if name, ok := runeNames()[r]; ok {
		s += " " + name
	}
	return s
}

// runeNames names the characters that hide or reorder text.
func runeNames() map[rune]string {
	return map[rune]string{
		0x00A0: "NO-BREAK SPACE", 0x00AD: "SOFT HYPHEN", 0x034F: "COMBINING GRAPHEME JOINER", 0x061C: "ARABIC LETTER MARK",
		0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0x180E: "MONGOLIAN VOWEL SEPARATOR",
		0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
		0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
		0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
		0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
		0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES", 0x2063: "INVISIBLE SEPARATOR", 0x2064: "INVISIBLE PLUS",
		0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
		0x3000: "IDEOGRAPHIC SPACE", 0x3164: "HANGUL FILLER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0xFFA0: "HALFWIDTH HANGUL FILLER",
	}
}

// isBidi reports whether r is a bidirectional control (Unicode's
// Bidi_Control: the marks, embeddings, overrides and isolates), which can
// make text display in another order than a model reads it.
func isBidi(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// FirstBidi is the first bidirectional control in s and its byte offset,
// or false.
func FirstBidi(s string) (rune, int, bool) {
	// Each is written with a first byte of 0xD8 (U+061C) or 0xE2 (the
	// rest): strings.IndexByte finds the next of each, and only those
	// places are decoded.
	d8, e2 := nextByte(s, 0, 0xD8), nextByte(s, 0, 0xE2)
	for {
		i := min(d8, e2)
		if i == len(s) {
			return 0, 0, false
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); isBidi(r) {
			return r, i, true
		}
		if i == d8 {
			d8 = nextByte(s, i+1, 0xD8)
		} else {
			e2 = nextByte(s, i+1, 0xE2)
		}
	}
}

// nextByte is the offset of the first c in s at or after from, len(s)
// when there is none.
func nextByte(s string, from int, c byte) int {
	if j := strings.IndexByte(s[from:], c); j >= 0 {
		return from + j
	}
	return len(s)
}
