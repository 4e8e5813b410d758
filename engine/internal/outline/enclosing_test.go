package outline

import (
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestEnclosing holds that Enclosing names the block a line stands in, by
// its kind and the line that opened it, and nothing for a line outside
// any.
func TestEnclosing(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		line   string // the line asked about
		kind   string // "" for none
		opener string
		at     int // the opener's line
	}{
		{"a fence left open", "# A\n\n```text\ncode\n## B\n", "## B", "code block", "```text", 3},
		{"a closed fence", "```\ncode\n```\n## B\n", "## B", "", "", 0},
		{"inside a closed fence", "x\n\n~~~~\n## B\n~~~~\n", "## B", "code block", "~~~~", 3},
		{"an HTML block", "<details>\n## B\n", "## B", "HTML block", "<details>", 1},
		{"after the blank line", "<details>\n\n## B\n", "## B", "", "", 0},
		{"a comment", "<!-- a\n## B\n-->\n", "## B", "HTML block", "<!-- a", 1},
		{"indented", "para\n\n    ## B\n", "    ## B", "indented code block", "    ## B", 3},
		{"indented code before it", "    code\n    ## B\n", "    ## B", "indented code block", "    code", 1},
		{"indented in a paragraph", "para\n    ## B\n", "    ## B", "paragraph", "    ## B", 2},
		{"a heading", "# A\n## B\n", "## B", "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := strings.Index(c.src, c.line+"\n")
			b, ok := Enclosing(c.src, nil, at)
			if ok != (c.kind != "") || b.Kind != c.kind || b.Opener != c.opener || b.Line != c.at {
				t.Errorf("Enclosing = %+v, %v; want %s %q at line %d", b, ok, c.kind, c.opener, c.at)
			}
		})
	}
	// Around a verbatim region: a fence inside it ends with it.
	src := "<<<\n```\n>>>\n## B\n"
	regions := []verbatim.Region{{Start: 4, End: 7}}
	if b, ok := Enclosing(src, regions, strings.Index(src, "## B")); ok {
		t.Errorf("a fence inside a region swallows what follows it: %+v", b)
	}
	if _, ok := Enclosing(src, nil, 1); ok {
		t.Error("an offset that is no line start is in a block")
	}
}

// TestEnclosingMatchesGoldmark: every line goldmark reads as the content of
// a fenced code block, Enclosing places in that block, opened by the line
// before its first.
func TestEnclosingMatchesGoldmark(t *testing.T) {
	checked := 0
	for _, src := range markdown {
		if _, ok := scan(src, nil); !ok {
			continue
		}
		source := []byte(src)
		doc := blockParser.Parse(text.NewReader(source))
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			f, ok := n.(*ast.FencedCodeBlock)
			if !ok || f.Lines().Len() == 0 {
				continue
			}
			first := f.Lines().At(0).Start
			opener := strings.LastIndexByte(src[:first-1], '\n') + 1
			for i := 0; i < f.Lines().Len(); i++ {
				seg := f.Lines().At(i)
				start := strings.LastIndexByte(src[:seg.Start], '\n') + 1
				b, ok := Enclosing(src, nil, start)
				checked++
				if !ok || b.Kind != "code block" || b.Offset != opener {
					t.Errorf("%q: the line at %d is in the code block opened at %d; Enclosing says %+v, %v", src, start, opener, b, ok)
				}
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d lines of code blocks checked", checked)
	}
}
