// Package outline lists the headings of a rendered prompt as SectionPaths
// ("Delegation Details > Task Summary"), reading markdown's block structure
// with goldmark and stepping around verbatim regions, whose headings belong
// to the prompt they embed.
package outline

import (
	"bytes"
	"strings"

	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
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

// blockParser is configuration, built once and never changed: goldmark
// keeps each parse's state in a context of its own. It knows markdown's
// block structure only: headings, fences, code
// blocks, HTML blocks, lists, quotes. Checks need nothing inline, and skipping
// inline parsing keeps them cheap.
var blockParser = parser.NewParser(
	parser.WithBlockParsers(
		util.Prioritized(parser.NewSetextHeadingParser(), 100),
		util.Prioritized(parser.NewCodeBlockParser(), 500),
		util.Prioritized(parser.NewATXHeadingParser(), 600),
		util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
		util.Prioritized(parser.NewHTMLBlockParser(), 900),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	),
	parser.WithInlineParsers(),
	parser.WithParagraphTransformers(),
)

// Of lists the document-level headings of src, reading around the opaque
// regions: a heading inside one does not count, and a fence left open inside
// one ends with it instead of swallowing what follows.
func Of(src string, opaque []verbatim.Region) []Heading {
	kept := len(src)
	for _, r := range opaque {
		kept -= r.End - r.Start
	}
	source := make([]byte, 0, kept)
	prev := 0
	for _, r := range opaque {
		source = append(source, src[prev:r.Start]...)
		prev = r.End
	}
	source = append(source, src[prev:]...)
	toSource := func(off int) int {
		for _, r := range opaque {
			if off >= r.Start {
				off += r.End - r.Start
			} else {
				break
			}
		}
		return off
	}
	doc := blockParser.Parse(text.NewReader(source))
	var out []Heading
	var stack []Heading
	lineOff, line := 0, 1 // counting lines incrementally keeps this linear
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		var parts []string
		for i := 0; i < h.Lines().Len(); i++ {
			seg := h.Lines().At(i)
			parts = append(parts, strings.TrimSpace(string(seg.Value(source))))
		}
		title := strings.Join(parts, " ")
		first := h.Lines().At(0).Start
		lineStart := bytes.LastIndexByte(source[:first], '\n') + 1
		off := toSource(lineStart)
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		path := title
		if len(stack) > 0 {
			path = stack[len(stack)-1].Path + " > " + title
		}
		line += strings.Count(src[lineOff:off], "\n")
		lineOff = off
		hd := Heading{Level: h.Level, Text: title, Path: path, Offset: off, Line: line}
		stack = append(stack, hd)
		out = append(out, hd)
	}
	return out
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
