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

// Levels returns the region of every level of nesting of text, outermost
// first, in one pass over its lines: text[r.Start:r.End] of Levels(text)[i]
// is what Extract(text, i+1) returns, and each region lies inside the one
// before it. The chain ends before the first level that holds no region
// (the root of a chain of delegations) or more than one (which Extract
// refuses). The error is for markers that do not balance, as Extract's at
// level 1. The audit store walks a chain with it: extracting level by level
// would read the text again at each level, time quadratic in the depth.
func (m Markers) Levels(text string) ([]Region, error) {
	regions, _, err := m.levels(text)
	return regions, err
}

// levels finds the chain of Levels, and how many regions the level after
// it holds: 0, or more than one.
func (m Markers) levels(text string) (chain []Region, after int, err error) {
	var open []int      // content start of each region open, outermost first
	var counts []int    // regions found at each level
	var firsts []Region // the first region found at each level
	lineNo := 0
	for off := 0; off < len(text); {
		lineNo++
		nl := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if nl >= 0 {
			next = off + nl + 1
		}
		line := strings.TrimSuffix(text[off:next], "\n")
		if m.couldBe(line) {
			switch m.lineKind(line) {
			case +1:
				open = append(open, next)
			case -1:
				if len(open) == 0 {
					return nil, 0, fmt.Errorf("line %d: end marker %q without a start marker", lineNo, m.End)
				}
				level := len(open) - 1
				contentStart := open[level]
				open = open[:level]
				end := max(off-1, contentStart)
				for len(counts) <= level {
					counts = append(counts, 0)
					firsts = append(firsts, Region{})
				}
				if counts[level] == 0 {
					firsts[level] = Region{Start: contentStart, End: end}
				}
				counts[level]++
			}
		}
		off = next
	}
	if len(open) != 0 {
		return nil, 0, fmt.Errorf("%d start marker(s) %q without an end marker", len(open), m.Start)
	}
	for i, n := range counts {
		if n != 1 {
			return chain, n, nil
		}
		chain = append(chain, firsts[i])
	}
	return chain, 0, nil
}

// Extract returns the field held in the one top-level region of text: the
// inverse of rendering it. depth 1 gives the region of text itself, depth 2
// the region inside that one, and so on. It reads text once, whatever the
// depth (see Levels).
func (m Markers) Extract(text string, depth int) (string, error) {
	if depth < 1 {
		return "", problem.Usage("depth must be 1 or more")
	}
	chain, after, err := m.levels(text)
	if err != nil {
		return "", &problem.Error{Kind: problem.KindInput, Level: 1,
			Reason: "unbalanced markers: " + err.Error(), Hints: []string{"the prompt was changed after it was rendered; extract from the prompt as it was rendered"}}
	}
	if depth <= len(chain) {
		r := chain[depth-1]
		return text[r.Start:r.End], nil
	}
	level := len(chain) + 1
	if after == 0 {
		return "", &problem.Error{Kind: problem.KindInput, Level: level,
			Reason: fmt.Sprintf("no %q marker line: the prompt at this level holds no embedded prompt", m.Start),
			Hints:  []string{fmt.Sprintf("the chain is %d level(s) deep; ask for a smaller depth", level-1)}}
	}
	return "", &problem.Error{Kind: problem.KindInput, Level: level,
		Reason: fmt.Sprintf("%d top-level regions; a rendered prompt holds exactly one", after)}
}
