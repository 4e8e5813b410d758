// Package check runs a manifest's checks on a rendered prompt: its verbatim
// regions hold their fields exactly, its headings stand in order, forbidden
// text is absent and required text present, and it fits its size. It reads
// the prompt's markdown structure through package outline, with verbatim
// regions opaque.
package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine/internal/outline"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// Result is the outcome of one check.
type Result struct {
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
	// Section names the section whose template wrote what a failed check
	// found, when the check found text.
	Section string `json:"section,omitempty"`
}

// Prompt is what the checks read: the text, the input it was rendered from
// (after defaults and ids), and which section wrote a byte, for messages.
type Prompt struct {
	Text string
	Data map[string]any
	// SectionAt names the section that wrote the byte at an offset, or "".
	SectionAt func(offset int) string
	// When evaluates the when: condition of a forbid or require rule.
	When func(kind string, i int, rule manifest.TextRule) (bool, error)
	// Declared, when set, gives the line of the manifest that declares an
	// entry of its checks, Declared("headings", 2) for checks.headings[2],
	// or 0; a failure is placed there.
	Declared func(key string, i int) int
	// WrittenAt, when set, names the place in a template whose text wrote
	// the prompt's line at an offset ("instructions.md.tmpl:1:1"), or ""
	// when no template holds that line as text.
	WrittenAt func(offset int) string
}

// Report is what the checks found.
type Report struct {
	Regions []verbatim.Region
	Outline []outline.Heading
	Results []Result
	// notes say more of a failed result, by its index: the manifest line
	// that declares the check, and what to do.
	notes map[int]note
}

type note struct {
	line  int
	hints []string
}

// note adds to the last result the line that declares its check and hints.
func (r *Report) note(line int, hints ...string) {
	if r.notes == nil {
		r.notes = map[int]note{}
	}
	r.notes[len(r.Results)-1] = note{line: line, hints: hints}
}

// OK reports whether every check passed.
func (r *Report) OK() bool {
	for _, c := range r.Results {
		if !c.OK {
			return false
		}
	}
	return true
}

// Run runs every check of m on p. A failed check is a Result with OK false;
// the error is for what kept a check from running (a condition that fails).
func Run(p Prompt, m *manifest.Manifest) (*Report, error) {
	rep := &Report{}
	add := func(name string, ok bool, format string, args ...any) {
		r := Result{Check: name, OK: ok}
		if format != "" {
			r.Message = fmt.Sprintf(format, args...)
		}
		rep.Results = append(rep.Results, r)
	}
	for _, vb := range m.Verbatim {
		name := "verbatim " + vb.Name
		regions, err := verbatim.Of(vb).TopRegions(p.Text)
		switch {
		case err != nil:
			add(name, false, "the markers in the prompt do not balance: %v", err)
			continue
		case len(regions) != 1:
			add(name, false, "found %d regions between %q and %q lines; the templates must write exactly one", len(regions), vb.Start, vb.End)
			continue
		}
		r := regions[0]
		r.Name = vb.Name
		want, _ := pointer.Lookup(p.Data, vb.Field)
		got := p.Text[r.Start:r.End]
		if s, _ := want.(string); s != got {
			add(name, false, "the text between the markers differs from %s at byte %d", vb.Field, phrase.CommonPrefixLen(s, got))
			continue
		}
		rep.Regions = append(rep.Regions, r)
		add(name, true, "")
	}
	slices.SortFunc(rep.Regions, func(a, b verbatim.Region) int { return a.Start - b.Start })
	rep.Outline = outline.Of(p.Text, rep.Regions)
	if len(m.Checks.Headings) > 0 {
		headings(rep, m.Checks.Headings, p, add)
	}
	rules := [][]manifest.TextRule{m.Checks.Forbid, m.Checks.Require}
	for k, kind := range []string{"forbid", "require"} {
		for i, rule := range rules[k] {
			on := true
			if rule.When != "" {
				var err error
				if on, err = p.When(kind, i, rule); err != nil {
					return nil, err
				}
			}
			if !on {
				continue
			}
			at := find(p.Text, rep.Regions, rule)
			if kind == "forbid" {
				add(fmt.Sprintf("forbid %q", rule.Text), at < 0, "%s", where(p, at, "found at"))
				if at >= 0 {
					rep.Results[len(rep.Results)-1].Section = p.SectionAt(at)
				}
			} else {
				msg := ""
				if at < 0 {
					msg = "not found in the prompt"
				}
				add(fmt.Sprintf("require %q", rule.Text), at >= 0, "%s", msg)
			}
		}
	}
	if max := m.Checks.MaxBytes; max > 0 {
		add("max_bytes", len(p.Text) <= max, "the prompt is %s; the limit is %s", phrase.Size(len(p.Text)), phrase.Size(max))
	}
	return rep, nil
}

// Failure is the error for a report with failed checks, or nil; position
// names the manifest that declares them, and gets the line of the first
// failed check whose line Prompt.Declared told.
func (r *Report) Failure(variant, position string) *problem.Error {
	var failed, hints []string
	line := 0
	for i, c := range r.Results {
		if c.OK {
			continue
		}
		failed = append(failed, c.Check+": "+c.Message)
		n := r.notes[i]
		if line == 0 {
			line = n.line
		}
		hints = append(hints, n.hints...)
	}
	if len(failed) == 0 {
		return nil
	}
	if line > 0 {
		position += ":" + strconv.Itoa(line)
	}
	if len(hints) == 0 {
		hints = []string{"the rendered prompt breaks a rule of the manifest's checks: fix the template or the input that produced it"}
	}
	return &problem.Error{Kind: problem.KindCheck, Variant: variant, Position: position,
		Reason: fmt.Sprintf("%d check(s) failed: %s", len(failed), strings.Join(failed, "; ")),
		Hints:  hints}
}

func headings(rep *Report, want []string, p Prompt, add func(string, bool, string, ...any)) {
	declared := func(i int) int {
		if p.Declared == nil {
			return 0
		}
		return p.Declared("headings", i)
	}
	lines := make([]int, len(want)) // where each required heading stands, 0 when absent
	for _, h := range rep.Outline {
		for i, w := range want {
			level, text := outline.ParseHeadingLine(w)
			if level != h.Level || text != h.Text {
				continue
			}
			if lines[i] != 0 {
				add("headings", false, "%q appears twice, at line %d and %s", w, lines[i], where(p, h.Offset, "at"))
				rep.Results[len(rep.Results)-1].Section = p.SectionAt(h.Offset)
				rep.note(declared(i))
				return
			}
			lines[i] = h.Line
		}
	}
	for i, w := range want {
		if lines[i] == 0 {
			msg, section, hints := missingHeading(rep, want, i, p)
			add("headings", false, "%s", msg)
			rep.Results[len(rep.Results)-1].Section = section
			rep.note(declared(i), hints...)
			return
		}
		if i > 0 && lines[i] < lines[i-1] {
			add("headings", false, "%q at line %d comes before %q at line %d", w, lines[i], want[i-1], lines[i-1])
			rep.note(declared(i))
			return
		}
	}
	add("headings", true, "")
}

// missingHeading says why the required heading want[i] is not among the
// prompt's: its line stands inside a block that makes it text (a code
// fence left open before it) or inside a verbatim region; or the prompt
// has a heading near it, in another case, at another level or spelt
// nearly so. It returns the message, the section that wrote what it names,
// and what to do.
func missingHeading(rep *Report, want []string, i int, p Prompt) (msg, section string, hints []string) {
	w := want[i]
	level, text := outline.ParseHeadingLine(w)
	if at, ok := headingLine(p.Text, rep.Regions, level, text); ok {
		if msg, section, hints, ok := notAHeading(rep, p, w, at); ok {
			return msg, section, hints
		}
	}
	if h, why, ok := nearestHeading(rep.Outline, want, level, text); ok {
		name := strings.Repeat("#", h.Level) + " " + h.Text
		msg = fmt.Sprintf("%q is missing; the prompt has %q (%s) %s", w, name, why, where(p, h.Offset, "at"))
		hints = append(hints, fmt.Sprintf("if that is the heading, write it as %q at %s; if the manifest is wrong, change this entry of checks.headings", w, writtenAt(p, h.Offset)))
		return msg, p.SectionAt(h.Offset), hints
	}
	return noHeadingNear(rep, want, i, p, level)
}

// writtenAt says what wrote the prompt at an offset, for a hint to name
// where to fix it: the template's own position when the render knows it,
// or the section; "" when neither is known.
func writtenAt(p Prompt, at int) string {
	if p.WrittenAt != nil {
		if pos := p.WrittenAt(at); pos != "" {
			return pos
		}
	}
	if s := p.SectionAt(at); s != "" {
		return fmt.Sprintf("section %s (%s.md.tmpl or the input it shows)", s, s)
	}
	return ""
}

// notAHeading explains a heading w whose line the prompt has, at offset
// at, but not as a heading: it stands inside a verbatim region, a code
// block or an HTML block, or is indented. ok is false when none of these
// is so.
func notAHeading(rep *Report, p Prompt, w string, at int) (msg, section string, hints []string, ok bool) {
	line := lineAt(p.Text, at)
	if r, in := regionAt(rep.Regions, at); in {
		return fmt.Sprintf("%q is missing: the only one, at line %d of the prompt, is inside the verbatim region %s, whose headings belong to the text it embeds", w, line, r.Name),
			p.SectionAt(at), []string{"write the heading in a template, outside the verbatim markers"}, true
	}
	b, in := outline.Enclosing(p.Text, rep.Regions, at)
	if !in {
		return "", "", nil, false
	}
	opened := fmt.Sprintf("%q at line %d", b.Opener, b.Line)
	if s := p.SectionAt(b.Offset); s != "" {
		opened += " (section " + s + ")"
	}
	switch b.Kind {
	case "code block":
		msg = fmt.Sprintf("%q is missing: at line %d of the prompt it stands inside a code block, which the fence %s opened and no fence closes before it, so it is no heading", w, line, opened)
		fence := strings.TrimSpace(b.Opener)
		fence = fence[:len(fence)-len(strings.TrimLeft(fence, fence[:1]))]
		hints = append(hints, fmt.Sprintf("close that code block before the heading with a line of %s: a fence left open runs on until one closes it; the fence comes from %s", fence, writtenAt(p, b.Offset)))
	case "HTML block":
		msg = fmt.Sprintf("%q is missing: at line %d of the prompt it stands inside an HTML block, which %s opened and only a blank line ends, so it is no heading", w, line, opened)
		hints = append(hints, fmt.Sprintf("leave a blank line before the heading, or after the HTML that %s writes", writtenAt(p, b.Offset)))
	default:
		msg = fmt.Sprintf("%q is missing: at line %d of the prompt it is indented four spaces or more, so it is no heading", w, line)
		hints = append(hints, fmt.Sprintf("remove the indentation before the heading (%s)", writtenAt(p, at)))
	}
	return msg, p.SectionAt(b.Offset), hints, true
}

// noHeadingNear explains a heading want[i], of level, that nothing in
// the prompt comes near: where the order of checks.headings puts it and
// what the prompt has there (one heading there is most likely a
// rewording of it), or else the prompt's headings of its level.
func noHeadingNear(rep *Report, want []string, i int, p Prompt, level int) (msg, section string, hints []string) {
	w := want[i]
	msg = fmt.Sprintf("%q is missing: no heading of the prompt comes near it", w)
	if place, sections := between(rep, want, i, p); place != "" {
		msg += "; by the order of checks.headings it belongs " + place
		there := headingsThere(rep, want, i, level)
		if len(there) > 0 {
			var names []string
			for _, h := range there {
				names = append(names, fmt.Sprintf("%q (line %d)", strings.Repeat("#", h.Level)+" "+h.Text, h.Line))
			}
			msg += ", where the prompt has " + strings.Join(names, ", ")
		}
		if len(there) == 1 {
			// A rewording, most likely: the heading to write it over.
			h := there[0]
			hints = append(hints, fmt.Sprintf("if %q is that heading, write it as %q at %s; if the manifest is wrong, change this entry of checks.headings",
				strings.Repeat("#", h.Level)+" "+h.Text, w, writtenAt(p, h.Offset)))
			return msg, p.SectionAt(h.Offset), hints
		}
		if len(sections) > 0 {
			hints = append(hints, fmt.Sprintf("write %q where it belongs, in the template of section %s (%s.md.tmpl), or remove it from checks.headings",
				w, strings.Join(sections, " or "), sections[0]))
			return msg, sections[0], hints
		}
	} else {
		var same []string
		for _, h := range rep.Outline {
			if h.Level == level && len(same) < 10 {
				same = append(same, fmt.Sprintf("%q", strings.Repeat("#", h.Level)+" "+h.Text))
			}
		}
		if len(same) > 0 {
			msg += fmt.Sprintf("; its level-%d headings are %s", level, strings.Join(same, ", "))
		}
	}
	hints = append(hints, fmt.Sprintf("write %q in the template of the section that should hold it, or remove it from checks.headings", w))
	return msg, "", hints
}

// headingsThere are the headings of the level of the missing want[i]
// that the prompt has where it belongs, between the required headings
// before and after it that the prompt has: a rewording, most likely.
func headingsThere(rep *Report, want []string, i, level int) []outline.Heading {
	at := func(w string) int {
		l, t := outline.ParseHeadingLine(w)
		for _, h := range rep.Outline {
			if h.Level == l && h.Text == t {
				return h.Offset
			}
		}
		return -1
	}
	from, to := -1, -1
	for j := i - 1; j >= 0 && from < 0; j-- {
		from = at(want[j])
	}
	for j := i + 1; j < len(want) && to < 0; j++ {
		to = at(want[j])
	}
	var out []outline.Heading
	for _, h := range rep.Outline {
		if h.Level == level && h.Offset > from && (to < 0 || h.Offset < to) && len(out) < 5 {
			out = append(out, h)
		}
	}
	return out
}

// between says where the missing want[i] belongs by the order of the
// required headings: after the one before it that the prompt has, and
// before the one after it ("after "## A" (line 3 of the prompt) and before
// "## C" (line 9)"), with the sections that wrote the text between them,
// where an author would write it: those after the section of the heading
// before, up to and with the section of the heading after, or, when both
// stand in one section, that one. It is "" when the prompt has neither.
func between(rep *Report, want []string, i int, p Prompt) (place string, sections []string) {
	find := func(w string) (outline.Heading, bool) {
		level, text := outline.ParseHeadingLine(w)
		for _, h := range rep.Outline {
			if h.Level == level && h.Text == text {
				return h, true
			}
		}
		return outline.Heading{}, false
	}
	from, to := 0, len(p.Text)
	var parts []string
	for j := i - 1; j >= 0; j-- {
		if h, ok := find(want[j]); ok {
			parts = append(parts, fmt.Sprintf("after %q (line %d of the prompt)", want[j], h.Line))
			from = h.Offset
			break
		}
	}
	for j := i + 1; j < len(want); j++ {
		if h, ok := find(want[j]); ok {
			parts = append(parts, fmt.Sprintf("before %q (line %d)", want[j], h.Line))
			to = h.Offset
			break
		}
	}
	if len(parts) == 0 || p.SectionAt == nil {
		return strings.Join(parts, " and "), nil
	}
	// The sections of the lines between, in order; the section of the
	// heading before comes last, as the one to extend when no other is.
	first := p.SectionAt(from)
	for at := from; at < to; {
		if s := p.SectionAt(at); s != "" && s != first && !slices.Contains(sections, s) {
			sections = append(sections, s)
		}
		next := strings.IndexByte(p.Text[at:to], '\n')
		if next < 0 {
			break
		}
		at += next + 1
	}
	if len(sections) > 1 && to < len(p.Text) && p.SectionAt(to) == sections[len(sections)-1] {
		// The heading after opens the last section: the text before it is
		// the other sections'.
		sections = sections[:len(sections)-1]
	}
	if len(sections) == 0 && first != "" {
		sections = []string{first}
	}
	return strings.Join(parts, " and "), sections
}

// nearestHeading is the heading of the prompt an author most likely meant
// by level and text: the same text in another case or at another level,
// or a near spelling; never one another required heading names.
func nearestHeading(hs []outline.Heading, want []string, level int, text string) (outline.Heading, string, bool) {
	var cands []outline.Heading
	for _, h := range hs {
		if !slices.ContainsFunc(want, func(w string) bool {
			l, t := outline.ParseHeadingLine(w)
			return l == h.Level && t == h.Text
		}) {
			cands = append(cands, h)
		}
	}
	levelWords := func(h outline.Heading) string {
		return fmt.Sprintf("at level %d, not %d", h.Level, level)
	}
	for _, h := range cands {
		if strings.EqualFold(h.Text, text) && h.Level == level {
			return h, "another case", true
		}
	}
	for _, h := range cands {
		if strings.EqualFold(h.Text, text) {
			why := levelWords(h)
			if h.Text != text {
				why += ", and another case"
			}
			return h, why, true
		}
	}
	texts := make([]string, len(cands))
	for i, h := range cands {
		texts[i] = h.Text
	}
	near := phrase.Closest(text, texts)
	if near == "" {
		return outline.Heading{}, "", false
	}
	best := -1
	for i, h := range cands {
		if h.Text == near && (best < 0 || h.Level == level && cands[best].Level != level) {
			best = i
		}
	}
	h := cands[best]
	if h.Level != level {
		return h, "a near spelling, " + levelWords(h), true
	}
	return h, "a near spelling", true
}

// headingLine finds the first line of text that reads as the heading
// (level, title) but for what holds it: a line outside the verbatim
// regions first, else one inside them. Four spaces or more of indentation
// are allowed, for a heading an indented code block holds.
func headingLine(text string, regions []verbatim.Region, level int, title string) (int, bool) {
	inside := -1
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		next := at + end + 1
		if end < 0 {
			end, next = len(text)-at, len(text)
		}
		line := strings.TrimRight(text[at:at+end], "\r")
		trimmed := strings.TrimLeft(line, " \t")
		if l, t := outline.ParseHeadingLine(trimmed); l == level && t == title && len(trimmed) > l && (trimmed[l] == ' ' || trimmed[l] == '\t') {
			if _, in := regionAt(regions, at); !in {
				return at, true
			}
			if inside < 0 {
				inside = at
			}
		}
		at = next
	}
	return inside, inside >= 0
}

func regionAt(regions []verbatim.Region, at int) (verbatim.Region, bool) {
	for _, r := range regions {
		if at >= r.Start && at < r.End {
			return r, true
		}
	}
	return verbatim.Region{}, false
}

func lineAt(text string, at int) int { return 1 + strings.Count(text[:at], "\n") }

// find returns the offset of rule.Text in the prompt, or -1.
func find(text string, regions []verbatim.Region, rule manifest.TextRule) int {
	if !rule.OutsideVerbatim || len(regions) == 0 {
		return strings.Index(text, rule.Text)
	}
	prev := 0
	for _, r := range append(regions, verbatim.Region{Start: len(text), End: len(text)}) {
		if i := strings.Index(text[prev:r.Start], rule.Text); i >= 0 {
			return prev + i
		}
		prev = r.End
	}
	return -1
}

// where says where an offset of the prompt is: its line, and the section
// whose template wrote it, which is where an author or caller can look.
func where(p Prompt, at int, what string) string {
	if at < 0 {
		return ""
	}
	msg := fmt.Sprintf("%s line %d of the prompt", what, 1+strings.Count(p.Text[:at], "\n"))
	if s := p.SectionAt(at); s != "" {
		msg += fmt.Sprintf(", written by section %s (%s.md.tmpl or the input it shows)", s, s)
	}
	return msg
}
