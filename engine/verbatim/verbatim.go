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
	"iter"
	"strings"

	"github.com/promptsmith/promptsmith/internal/problem"
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

// markerLine is a line that holds marker text: a start marker line (kind
// +1), an end marker line (-1) or a line with marker text inside it (0), the
// offset it starts at and the offset of the line after it.
type markerLine struct{ kind, at, next int }

// markerLines yields the lines of text that hold marker text, in order. It
// searches for the markers themselves rather than reading every line: a
// 1 MiB parent prompt has tens of thousands of lines and a handful of
// markers, and the search skips to them at the speed of strings.Index.
func (m Markers) markerLines(text string) iter.Seq[markerLine] {
	return func(yield func(markerLine) bool) {
		start, end := find(text, 0, m.Start), find(text, 0, m.End)
		for {
			p := start
			if p < 0 || (end >= 0 && end < p) {
				p = end
			}
			if p < 0 {
				return
			}
			at := strings.LastIndexByte(text[:p], '\n') + 1
			next := len(text)
			if nl := strings.IndexByte(text[p:], '\n'); nl >= 0 {
				next = p + nl + 1
			}
			if start >= 0 && start < next {
				start = find(text, next, m.Start)
			}
			if end >= 0 && end < next {
				end = find(text, next, m.End)
			}
			if !yield(markerLine{kind: m.lineKind(strings.TrimSuffix(text[at:next], "\n")), at: at, next: next}) {
				return
			}
		}
	}
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

// lineNumber is the number of the line at offset at, for messages.
func lineNumber(text string, at int) int { return 1 + strings.Count(text[:at], "\n") }

// TopRegions finds the outermost regions of text in order.
func (m Markers) TopRegions(text string) ([]Region, error) {
	var out []Region
	depth, contentStart := 0, 0
	for l := range m.markerLines(text) {
		switch l.kind {
		case +1:
			if depth == 0 {
				contentStart = l.next
			}
			depth++
		case -1:
			if depth == 0 {
				return nil, fmt.Errorf("line %d: end marker %q without a start marker", lineNumber(text, l.at), m.End)
			}
			depth--
			if depth == 0 {
				out = append(out, Region{Start: contentStart, End: max(l.at-1, contentStart)})
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
	for l := range m.markerLines(s) {
		switch l.kind {
		case +1:
			depth++
		case -1:
			depth--
			if depth < 0 {
				return fmt.Errorf("line %d: end marker %q comes before its start marker", lineNumber(s, l.at), m.End)
			}
		default:
			return fmt.Errorf("line %d: marker text stands inside a line; a marker must be a line of its own", lineNumber(s, l.at))
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
	for l := range m.markerLines(text) {
		switch l.kind {
		case +1:
			open = append(open, l.next)
		case -1:
			if len(open) == 0 {
				return nil, 0, fmt.Errorf("line %d: end marker %q without a start marker", lineNumber(text, l.at), m.End)
			}
			level := len(open) - 1
			contentStart := open[level]
			open = open[:level]
			end := max(l.at-1, contentStart)
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
