package tokens

import (
	"unicode"
	"unicode/utf8"
)

// class is what the encodings' patterns ask of a character, as bits: the
// scanners test these instead of running the regular expression. The
// categories are Go's unicode tables, the ones regexp2 matches \p{..}
// against, and \s is unicode.IsSpace, as in regexp2.
type class uint8

const (
	cLetter  class = 1 << iota // \p{L}
	cNumber                    // \p{N}
	cSpace                     // \s
	cNewline                   // \r or \n
	cUpper                     // o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower                     // o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// classes holds the classes of the ASCII characters, so that the common
// case is one load; the rest are looked up in the unicode tables.
type classes [utf8.RuneSelf]class

func asciiClasses() *classes {
	var t classes
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOf(r)
	}
	return &t
}

// classOf looks a character up in the unicode tables. An invalid byte is
// U+FFFD, a symbol, as it is to regexp2, which reads text as runes.
func classOf(r rune) class {
	var c class
	switch {
	case unicode.IsLetter(r):
		c = cLetter
		switch {
		case unicode.Is(unicode.Ll, r):
			c |= cLower
		case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
			c |= cUpper
		default: // Lm, Lo
			c |= cUpper | cLower
		}
	case unicode.IsMark(r):
		c = cUpper | cLower
	case unicode.IsNumber(r):
		c = cNumber
	case unicode.IsSpace(r):
		c = cSpace
		if r == '\r' || r == '\n' {
			c |= cNewline
		}
	}
	return c
}

// at is the class and byte length of the character at i of s.
func (t *classes) at(s string, i int) (class, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return t[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOf(r), n
}

// other reports a character of [^\s\p{L}\p{N}]: punctuation, symbols, marks.
func (c class) other() bool { return c&(cLetter|cNumber|cSpace) == 0 }

// prefix reports a character of [^\r\n\p{L}\p{N}], which may lead a word.
func (c class) prefix() bool { return c&(cLetter|cNumber|cNewline) == 0 }
