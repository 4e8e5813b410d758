// Package outline lists the headings of a rendered prompt as SectionPaths
// ("Delegation Details > Task Summary"), reading markdown's block structure
// and stepping around verbatim regions, whose headings belong to the prompt
// they embed. A line scan finds the headings of most prompts; goldmark reads
// what the scan leaves to it, and is the reference the scan is tested
// against.
package outline

import (
	"strings"

	"github.com/promptsmith/promptsmith/engine/verbatim"
)

// Heading is one top-level heading of a prompt. Path is its SectionPath: the
// texts of the headings that enclose it and its own, joined by " > ".
type Heading struct {
	Level  int    `json:"level"`
	Text   string `json:"text"`
	Path   string `json:"path"`
	Offset int    `json:"offset"` // byte offset of the heading's line
	Line   int    `json:"line"`
}

// Of lists the document-level headings of src, reading around the opaque
// regions: a heading inside one does not count, and a fence left open inside
// one ends with it instead of swallowing what follows.
func Of(src string, opaque []verbatim.Region) []Heading {
	found, ok := scan(src, opaque)
	if !ok {
		found = parseAround(src, opaque)
	}
	out := make([]Heading, 0, len(found))
	var stack []Heading
	lineOff, line := 0, 1 // counting lines incrementally keeps this linear
	for _, h := range found {
		off := h.start
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.level {
			stack = stack[:len(stack)-1]
		}
		path := h.text
		if len(stack) > 0 {
			path = stack[len(stack)-1].Path + " > " + h.text
		}
		line += strings.Count(src[lineOff:off], "\n")
		lineOff = off
		hd := Heading{Level: h.level, Text: h.text, Path: path, Offset: off, Line: line}
		stack = append(stack, hd)
		out = append(out, hd)
	}
	return out
}

// parseAround asks goldmark for the headings of src without its opaque
// regions, at their offsets in src.
func parseAround(src string, opaque []verbatim.Region) []heading {
	var b strings.Builder
	prev := 0
	for _, r := range opaque {
		b.WriteString(src[prev:r.Start])
		prev = r.End
	}
	b.WriteString(src[prev:])
	found := parse(b.String())
	for i := range found {
		for _, r := range opaque {
			if found[i].start < r.Start {
				break
			}
			found[i].start += r.End - r.Start
		}
	}
	return found
}

// ParseHeadingLine reads "## Parent Prompt" as level 2, "Parent Prompt".
func ParseHeadingLine(s string) (int, string) {
	level := 0
	for level < len(s) && s[level] == '#' {
		level++
	}
	return level, strings.TrimSpace(s[level:])
}

// Paths lists the SectionPaths of the headings.
func Paths(hs []Heading) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, h.Path)
	}
	return out
}

// Block is a block of a prompt that holds its lines as text, so that a
// heading line inside it is no heading: a fenced or indented code block,
// an HTML block, or a paragraph an indented line continues.
type Block struct {
	Kind   string `json:"kind"`   // "code block", "indented code block", "HTML block" or "paragraph"
	Offset int    `json:"offset"` // byte offset of the line that opened it
	Line   int    `json:"line"`
	Opener string `json:"opener"` // that line, without its line break: "```text", "<details>"
}

// Enclosing returns the block that holds the line of src starting at
// offset, reading around the opaque regions as Of does. ok is false when
// the line stands in no such block, is no line start, or follows HTML that
// only goldmark can judge.
func Enclosing(src string, opaque []verbatim.Region, offset int) (Block, bool) {
	_, state, opener, ok := scanTo(src, opaque, offset)
	if !ok {
		return Block{}, false
	}
	rest := strings.TrimLeft(src[offset:], " ")
	deep := len(src)-offset-len(rest) >= 4 || strings.HasPrefix(rest, "\t")
	kind := ""
	switch state {
	case fenced:
		kind = "code block"
	case html, htmlToBlank:
		kind = "HTML block"
	case indented:
		// An indented block holds only the lines indented as code.
		if deep {
			kind = "indented code block"
		}
	case paragraph:
		if deep {
			kind, opener = "paragraph", offset
		}
	case between:
		if deep {
			kind, opener = "indented code block", offset
		}
	}
	if kind == "" {
		return Block{}, false
	}
	line := src[opener:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return Block{Kind: kind, Offset: opener, Line: 1 + strings.Count(src[:opener], "\n"), Opener: strings.TrimRight(line, "\r")}, true
}
