// Package verbatim finds the regions of a prompt that hold an input field
// byte for byte, between two marker lines:
//
//	<start marker line>\n<field, byte for byte>\n<end marker line>
//
// A marker is a whole line (a trailing \r is allowed, for text that went
// through CRLF conversion). Regions nest: the field may itself hold balanced
// regions, which is how a subagent prompt becomes the next parent. Extract
// reads a region back; it needs only the markers, so the audit store and the
// server use it without a loaded variant.
package verbatim

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine/problem"
)

// Region is the byte range of one verbatim field inside a prompt.
type Region struct {
	Name  string `json:"name"`
	Start int    `json:"start"` // the field is text[Start:End]
	End   int    `json:"end"`
}

// Markers are a region's start and end marker lines.
type Markers struct{ Start, End string }

// lineKind tells whether line (without its \n) is a start or end marker.
func (m Markers) lineKind(line string) int {
	line = strings.TrimSuffix(line, "\r")
	switch line {
	case m.Start:
		return +1
	case m.End:
		return -1
	}
	return 0
}

// couldBe is a cheap length test that spares comparing most lines.
func (m Markers) couldBe(line string) bool {
	n := len(strings.TrimSuffix(line, "\r"))
	return n == len(m.Start) || n == len(m.End)
}

// TopRegions finds the outermost regions of text in order.
func (m Markers) TopRegions(text string) ([]Region, error) {
	var out []Region
	depth, contentStart, lineNo := 0, 0, 0
	for off := 0; off < len(text); {
		lineNo++
		nl := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if nl >= 0 {
			next = off + nl + 1
		}
		line := text[off:next]
		line = strings.TrimSuffix(line, "\n")
		if m.couldBe(line) {
			switch m.lineKind(line) {
			case +1:
				if depth == 0 {
					contentStart = next
				}
				depth++
			case -1:
				if depth == 0 {
					return nil, fmt.Errorf("line %d: end marker %q without a start marker", lineNo, m.End)
				}
				depth--
				if depth == 0 {
					end := off - 1
					if end < contentStart {
						end = contentStart
					}
					out = append(out, Region{Start: contentStart, End: end})
				}
			}
		}
		off = next
	}
	if depth != 0 {
		return nil, fmt.Errorf("%d start marker(s) %q without an end marker", depth, m.Start)
	}
	return out, nil
}

// CheckField verifies that a field's own markers balance and that marker
// text never stands inside a line, where an extractor could be fooled by it.
func (m Markers) CheckField(s string) error {
	depth, lineNo := 0, 0
	for off := 0; off <= len(s); {
		lineNo++
		nl := strings.IndexByte(s[off:], '\n')
		next := len(s) + 1
		line := s[off:]
		if nl >= 0 {
			next = off + nl + 1
			line = s[off : off+nl]
		}
		if strings.Contains(line, m.Start) || strings.Contains(line, m.End) {
			switch m.lineKind(line) {
			case +1:
				depth++
			case -1:
				depth--
				if depth < 0 {
					return fmt.Errorf("line %d: end marker %q comes before its start marker", lineNo, m.End)
				}
			default:
				return fmt.Errorf("line %d: marker text stands inside a line; a marker must be a line of its own", lineNo)
			}
		}
		off = next
	}
	if depth != 0 {
		return fmt.Errorf("%d start marker(s) %q are never closed", depth, m.Start)
	}
	return nil
}

// Extract returns the field held in the one top-level region of text: the
// inverse of rendering it. depth 1 gives the region of text itself, depth 2
// the region inside that one, and so on.
func (m Markers) Extract(text string, depth int) (string, error) {
	if depth < 1 {
		return "", problem.Usage("depth must be 1 or more")
	}
	cur := text
	for level := 1; level <= depth; level++ {
		regions, err := m.TopRegions(cur)
		if err != nil {
			return "", &problem.Error{Kind: problem.KindInput, Level: level,
				Reason: "unbalanced markers: " + err.Error(), Hints: []string{"the prompt was changed after it was rendered; extract from the prompt as it was rendered"}}
		}
		switch len(regions) {
		case 0:
			return "", &problem.Error{Kind: problem.KindInput, Level: level,
				Reason: fmt.Sprintf("no %q marker line: the prompt at this level holds no embedded prompt", m.Start),
				Hints:  []string{fmt.Sprintf("the chain is %d level(s) deep; ask for a smaller depth", level-1)}}
		case 1:
		default:
			return "", &problem.Error{Kind: problem.KindInput, Level: level,
				Reason: fmt.Sprintf("%d top-level regions; a rendered prompt holds exactly one", len(regions))}
		}
		cur = cur[regions[0].Start:regions[0].End]
	}
	return cur, nil
}
