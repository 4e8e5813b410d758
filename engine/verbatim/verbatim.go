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

// markerLines visits the lines of a text that hold marker text, in order.
// It searches for the markers themselves rather than reading every line: a
// 1 MiB parent prompt has tens of thousands of lines and a handful of
// markers, and the search skips to them at the speed of strings.Index.
type markerLines struct {
	m          Markers
	text       string
	start, end int // the next offset of each marker, -1 when there is none
}

func (m Markers) lines(text string) markerLines {
	return markerLines{m: m, text: text, start: find(text, 0, m.Start), end: find(text, 0, m.End)}
}

// find is the offset of the first sub at or after from, or -1.
func find(text string, from int, sub string) int {
	if sub == "" {
		return -1
	}
	i := strings.Index(text[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// next returns the next line holding marker text, without its line break,
// the offset it starts at and the offset of the line after it.
func (l *markerLines) next() (line string, at, next int, ok bool) {
	p := l.start
	if p < 0 || (l.end >= 0 && l.end < p) {
		p = l.end
	}
	if p < 0 {
		return "", 0, 0, false
	}
	at = strings.LastIndexByte(l.text[:p], '\n') + 1
	next = len(l.text)
	if nl := strings.IndexByte(l.text[p:], '\n'); nl >= 0 {
		next = p + nl + 1
	}
	if l.start >= 0 && l.start < next {
		l.start = find(l.text, next, l.m.Start)
	}
	if l.end >= 0 && l.end < next {
		l.end = find(l.text, next, l.m.End)
	}
	return strings.TrimSuffix(l.text[at:next], "\n"), at, next, true
}

// lineNumber is the number of the line at offset at, for messages.
func lineNumber(text string, at int) int { return 1 + strings.Count(text[:at], "\n") }

// TopRegions finds the outermost regions of text in order.
func (m Markers) TopRegions(text string) ([]Region, error) {
	var out []Region
	depth, contentStart := 0, 0
	for l := m.lines(text); ; {
		line, off, next, ok := l.next()
		if !ok {
			break
		}
		switch m.lineKind(line) {
		case +1:
			if depth == 0 {
				contentStart = next
			}
			depth++
		case -1:
			if depth == 0 {
				return nil, fmt.Errorf("line %d: end marker %q without a start marker", lineNumber(text, off), m.End)
			}
			depth--
			if depth == 0 {
				out = append(out, Region{Start: contentStart, End: max(off-1, contentStart)})
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%d start marker(s) %q without an end marker", depth, m.Start)
	}
	return out, nil
}

// CheckField verifies that a field's own markers balance and that marker
// text never stands inside a line, where an extractor could be fooled by it.
func (m Markers) CheckField(s string) error {
	depth := 0
	for l := m.lines(s); ; {
		line, off, _, ok := l.next()
		if !ok {
			break
		}
		switch m.lineKind(line) {
		case +1:
			depth++
		case -1:
			depth--
			if depth < 0 {
				return fmt.Errorf("line %d: end marker %q comes before its start marker", lineNumber(s, off), m.End)
			}
		default:
			return fmt.Errorf("line %d: marker text stands inside a line; a marker must be a line of its own", lineNumber(s, off))
		}
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
	for l := m.lines(text); ; {
		line, off, next, ok := l.next()
		if !ok {
			break
		}
		switch m.lineKind(line) {
		case +1:
			open = append(open, next)
		case -1:
			if len(open) == 0 {
				return nil, 0, fmt.Errorf("line %d: end marker %q without a start marker", lineNumber(text, off), m.End)
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
