package outline

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// blockParser is configuration, built once and never changed: goldmark
// keeps each parse's state in a context of its own. It knows markdown's
// block structure only: headings, fences, code blocks and HTML blocks; a
// list or a quote is a paragraph to it, so a heading inside one is text.
// Checks need nothing inline, and skipping inline parsing keeps them cheap.
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

// parse lists the document-level headings of src with goldmark.
func parse(src string) []heading {
	source := []byte(src)
	doc := blockParser.Parse(text.NewReader(source))
	var out []heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		parts := make([]string, h.Lines().Len())
		for i := range parts {
			seg := h.Lines().At(i)
			parts[i] = strings.TrimSpace(string(seg.Value(source)))
		}
		first := h.Lines().At(0).Start
		out = append(out, heading{
			level: h.Level,
			text:  strings.Join(parts, " "),
			start: bytes.LastIndexByte(source[:first], '\n') + 1,
		})
	}
	return out
}
