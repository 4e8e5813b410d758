package engine

import (
	"fmt"
	"strings"
)

// A verbatim region is written as
//
//	<start marker line>\n<field, byte for byte>\n<end marker line>
//
// A marker is a whole line (a trailing \r is allowed, for text that went
// through CRLF conversion). Regions nest: the field may itself hold balanced
// regions, which is how a subagent prompt becomes the next parent.

// Region is the byte range of one verbatim field inside a prompt.
type Region struct {
	Name  string `json:"name"`
	Start int    `json:"start"` // the field is text[Start:End]
	End   int    `json:"end"`
}

type markers struct{ start, end string }

// lineKind tells whether line (without its \n) is a start or end marker.
func (m markers) lineKind(line string) int {
	line = strings.TrimSuffix(line, "\r")
	switch line {
	case m.start:
		return +1
	case m.end:
		return -1
	}
	return 0
}

// couldBe is a cheap length test that spares comparing most lines.
func (m markers) couldBe(line string) bool {
	n := len(strings.TrimSuffix(line, "\r"))
	return n == len(m.start) || n == len(m.end)
}

// topRegions finds the outermost regions of text in order.
func (m markers) topRegions(text string) ([]Region, error) {
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
					return nil, fmt.Errorf("line %d: end marker %q without a start marker", lineNo, m.end)
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
		return nil, fmt.Errorf("%d start marker(s) %q without an end marker", depth, m.start)
	}
	return out, nil
}

// checkField verifies that a field's own markers balance and that marker text
// never stands inside a line, where an extractor could be fooled by it.
func (m markers) checkField(s string) error {
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
		if strings.Contains(line, m.start) || strings.Contains(line, m.end) {
			switch m.lineKind(line) {
			case +1:
				depth++
			case -1:
				depth--
				if depth < 0 {
					return fmt.Errorf("line %d: end marker %q comes before its start marker", lineNo, m.end)
				}
			default:
				return fmt.Errorf("line %d: marker text stands inside a line; a marker must be a line of its own", lineNo)
			}
		}
		off = next
	}
	if depth != 0 {
		return fmt.Errorf("%d start marker(s) %q are never closed", depth, m.start)
	}
	return nil
}

// Extract returns the field held in the first top-level region delimited by
// the start and end marker lines: the inverse of rendering it. depth 1 gives
// the region of text itself, depth 2 the region inside that one, and so on.
func Extract(text, start, end string, depth int) (string, error) {
	m := markers{start, end}
	if depth < 1 {
		return "", &Error{Kind: KindUsage, Reason: "depth must be 1 or more"}
	}
	cur := text
	for level := 1; level <= depth; level++ {
		regions, err := m.topRegions(cur)
		if err != nil {
			return "", &Error{Kind: KindInput, Field: fmt.Sprintf("level %d", level),
				Reason: "unbalanced markers: " + err.Error(), Hints: []string{"the prompt was changed after it was rendered; extract from the prompt as it was rendered"}}
		}
		switch len(regions) {
		case 0:
			return "", &Error{Kind: KindInput, Field: fmt.Sprintf("level %d", level),
				Reason: fmt.Sprintf("no %q marker line: the prompt at this level holds no embedded prompt", start),
				Hints:  []string{fmt.Sprintf("the chain is %d level(s) deep; ask for a smaller depth", level-1)}}
		case 1:
		default:
			return "", &Error{Kind: KindInput, Field: fmt.Sprintf("level %d", level),
				Reason: fmt.Sprintf("%d top-level regions; a rendered prompt holds exactly one", len(regions))}
		}
		cur = cur[regions[0].Start:regions[0].End]
	}
	return cur, nil
}

// checkVerbatimInput enforces, before rendering, everything that keeps a
// verbatim field extractable: it exists, fits its limit, its markers balance,
// and no other input string carries marker text.
func (v *Variant) checkVerbatimInput(root map[string]any) error {
	for _, vb := range v.Manifest.Verbatim {
		m := markers{vb.Start, vb.End}
		raw, ok := lookup(root, vb.Field)
		if !ok {
			return inputErr(vb.Field, "required field is missing").
				hint("%s is embedded verbatim in the prompt; pass it as a string", vb.Field)
		}
		s, ok := raw.(string)
		if !ok {
			return inputErr(vb.Field, "expected a string, got %s", typeName(raw))
		}
		limit := vb.MaxBytes
		if vb.MaxBytesFrom != "" {
			if lv, ok := lookup(root, vb.MaxBytesFrom); ok && lv != nil {
				n, err := toInt(lv)
				if err != nil || n <= 0 {
					return inputErr(vb.MaxBytesFrom, "expected a positive number of bytes, got %s", shortJSON(lv))
				}
				limit = int(n)
			}
		}
		if limit > 0 && len(s) > limit {
			e := inputErr(vb.Field, "%s is %s, over the limit of %s: refused, it is never truncated",
				vb.Name, byteSize(len(s)), byteSize(limit))
			if vb.MaxBytesFrom != "" {
				e.hint("shorten it, or raise the limit with %s", vb.MaxBytesFrom)
			} else {
				e.hint("shorten it")
			}
			return e
		}
		if err := m.checkField(s); err != nil {
			return inputErr(vb.Field, "%s: %v", vb.Name, err).
				hint("marker lines %q and %q must come in nested pairs, as in a prompt this variant rendered", vb.Start, vb.End)
		}
	}
	// Maps are walked in Go's order here, so of several offending fields the
	// first in pointer order is reported, to keep the error deterministic.
	var bad *Error
	walkStrings(root, func(path []string, s string) {
		for _, vb := range v.Manifest.Verbatim {
			if !strings.Contains(s, vb.Start) && !strings.Contains(s, vb.End) {
				continue
			}
			ptr := pointerOf(path)
			if ptr == vb.Field || (bad != nil && bad.Field < ptr) {
				continue
			}
			bad = inputErr(ptr, "contains the marker text of %s", vb.Name).
				hint("only %s may hold %q or %q; remove the marker from this field", vb.Field, vb.Start, vb.End)
		}
	})
	if bad != nil {
		return bad
	}
	return nil
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
