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
