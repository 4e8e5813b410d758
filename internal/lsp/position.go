package lsp

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// LSP counts a position's character in UTF-16 code units; the engine
// counts bytes. These convert between the two on a document's text.

// offsetOf is the byte offset of a position in text, clamped to the text:
// a line past the end is the end, a character past the line its end.
func offsetOf(text string, p protocol.Position) int {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	units := uint32(0)
	for off < end && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:end])
		units += uint32(utf16.RuneLen(r))
		if r == utf8.RuneError && size == 1 {
			units = units - uint32(utf16.RuneLen(r)) + 1
		}
		off += size
	}
	return off
}

// positionOf is the LSP position of a byte offset in text.
func positionOf(text string, off int) protocol.Position {
	off = max(0, min(off, len(text)))
	start := strings.LastIndexByte(text[:off], '\n') + 1
	line := strings.Count(text[:start], "\n")
	return protocol.Position{Line: uint32(line), Character: units(text[start:off])}
}

// units counts the UTF-16 code units of s.
func units(s string) uint32 {
	n := uint32(0)
	for _, r := range s {
		n += uint32(max(1, utf16.RuneLen(r)))
	}
	return n
}

// lineCol is the LSP position of the engine's 1-based line and byte
// column; a column of 0 is the start of the line.
func lineCol(text string, line, col int) protocol.Position {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text) - off
	}
	return positionOf(text, off+min(max(col-1, 0), end))
}

// lineIndex converts many offsets of one text to positions, each in time
// logarithmic in the text's lines (positionOf counts from the start).
type lineIndex struct {
	text   string
	starts []int // the offset of each line's start
}

func newLineIndex(text string) *lineIndex {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{text: text, starts: starts}
}

func (x *lineIndex) position(off int) protocol.Position {
	off = max(0, min(off, len(x.text)))
	line, _ := slices.BinarySearch(x.starts, off+1)
	line-- // the last start at or before off
	return protocol.Position{Line: uint32(line), Character: units(x.text[x.starts[line]:off])}
}
