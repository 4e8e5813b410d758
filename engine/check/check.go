// Package check runs a manifest's checks on a rendered prompt: its verbatim
// regions hold their fields exactly, its headings stand in order, forbidden
// text is absent and required text present, and it fits its size. It reads
// the prompt's markdown structure through package outline, with verbatim
// regions opaque.
package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine/manifest"
	"github.com/promptsmith/promptsmith/engine/outline"
	"github.com/promptsmith/promptsmith/engine/pointer"
	"github.com/promptsmith/promptsmith/engine/problem"
	"github.com/promptsmith/promptsmith/engine/verbatim"
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
}

// Report is what the checks found.
type Report struct {
	Regions []verbatim.Region
	Outline []outline.Heading
	Results []Result
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
			add(name, false, "the text between the markers differs from %s at byte %d", vb.Field, firstDiff(s, got))
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
		add("max_bytes", len(p.Text) <= max, "the prompt is %s; the limit is %s", problem.Size(len(p.Text)), problem.Size(max))
	}
	return rep, nil
}

// Failure is the error for a report with failed checks, or nil; position
// names the manifest that declares them.
func (r *Report) Failure(variant, position string) *problem.Error {
	var failed []string
	for _, c := range r.Results {
		if !c.OK {
			failed = append(failed, c.Check+": "+c.Message)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &problem.Error{Kind: problem.KindCheck, Variant: variant, Position: position,
		Reason: fmt.Sprintf("%d check(s) failed: %s", len(failed), strings.Join(failed, "; ")),
		Hints:  []string{"the rendered prompt breaks a rule of the manifest's checks: fix the template or the input that produced it"}}
}

func headings(rep *Report, want []string, p Prompt, add func(string, bool, string, ...any)) {
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
				return
			}
			lines[i] = h.Line
		}
	}
	for i, w := range want {
		if lines[i] == 0 {
			add("headings", false, "%q is missing", w)
			return
		}
		if i > 0 && lines[i] < lines[i-1] {
			add("headings", false, "%q at line %d comes before %q at line %d", w, lines[i], want[i-1], lines[i-1])
			return
		}
	}
	add("headings", true, "")
}

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

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
