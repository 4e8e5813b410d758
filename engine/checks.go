package engine

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// CheckResult is the outcome of one manifest check on a rendered prompt.
type CheckResult struct {
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// check fills res.Regions, res.Outline and res.Checks, and returns an
// *Error of KindCheck when any check failed.
func (v *Variant) check(res *Result, data map[string]any) error {
	c := v.Manifest.Checks
	add := func(name string, ok bool, format string, args ...any) {
		r := CheckResult{Check: name, OK: ok}
		if format != "" {
			r.Message = fmt.Sprintf(format, args...)
		}
		res.Checks = append(res.Checks, r)
	}
	for _, vb := range v.Manifest.Verbatim {
		name := "verbatim " + vb.Name
		regions, err := markers{vb.Start, vb.End}.topRegions(res.Text)
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
		want, _ := lookup(data, vb.Field)
		got := res.Text[r.Start:r.End]
		if s, _ := want.(string); s != got {
			add(name, false, "the text between the markers differs from %s at byte %d", vb.Field, firstDiff(s, got))
			continue
		}
		res.Regions = append(res.Regions, r)
		add(name, true, "")
	}
	slices.SortFunc(res.Regions, func(a, b Region) int { return a.Start - b.Start })
	res.Outline = outline(res.Text, res.Regions)
	if len(c.Headings) > 0 {
		v.checkHeadings(res, add)
	}
	for i, rule := range c.Forbid {
		if on, err := v.condition("forbid", i, rule, data); err != nil {
			return err
		} else if on {
			at := v.find(res, rule)
			add(fmt.Sprintf("forbid %q", rule.Text), at < 0, "%s", whereInPrompt(res, at, "found at"))
		}
	}
	for i, rule := range c.Require {
		if on, err := v.condition("require", i, rule, data); err != nil {
			return err
		} else if on {
			at := v.find(res, rule)
			msg := ""
			if at < 0 {
				msg = "not found in the prompt"
			}
			add(fmt.Sprintf("require %q", rule.Text), at >= 0, "%s", msg)
		}
	}
	if c.MaxBytes > 0 {
		add("max_bytes", len(res.Text) <= c.MaxBytes, "the prompt is %s; the limit is %s", byteSize(len(res.Text)), byteSize(c.MaxBytes))
	}
	var failed []string
	for _, r := range res.Checks {
		if !r.OK {
			failed = append(failed, r.Check+": "+r.Message)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &Error{Kind: KindCheck, Field: v.dir + "/prompt.yaml",
		Reason: fmt.Sprintf("%d check(s) failed: %s", len(failed), strings.Join(failed, "; ")),
		Hints:  []string{"the rendered prompt breaks a rule of the manifest's checks: fix the template or the input that produced it"}}
}

func (v *Variant) checkHeadings(res *Result, add func(string, bool, string, ...any)) {
	want := v.Manifest.Checks.Headings
	lines := make([]int, len(want)) // where each required heading stands, 0 when absent
	for _, h := range res.Outline {
		for i, w := range want {
			level, text := parseHeadingLine(w)
			if level != h.Level || text != h.Text {
				continue
			}
			if lines[i] != 0 {
				add("headings", false, "%q appears twice, at line %d and %s", w, lines[i], whereInPrompt(res, h.Offset, "at"))
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

// condition evaluates a rule's when expression over the input.
func (v *Variant) condition(kind string, i int, rule TextRule, data map[string]any) (bool, error) {
	if rule.When == "" {
		return true, nil
	}
	var b bytes.Buffer
	if err := v.tmpl.ExecuteTemplate(&b, conditionName(kind, i), data); err != nil {
		return false, v.templateError(err)
	}
	switch strings.TrimSpace(b.String()) {
	case "true":
		return true, nil
	case "false", "":
		return false, nil
	}
	return false, authorErr(v.dir+"/prompt.yaml", "checks.%s[%d].when gave %q; it must give true or false", kind, i, b.String())
}

// find returns the offset of rule.Text in the prompt, or -1.
func (v *Variant) find(res *Result, rule TextRule) int {
	if !rule.OutsideVerbatim || len(res.Regions) == 0 {
		return strings.Index(res.Text, rule.Text)
	}
	prev := 0
	for _, r := range append(res.Regions, Region{Start: len(res.Text), End: len(res.Text)}) {
		if i := strings.Index(res.Text[prev:r.Start], rule.Text); i >= 0 {
			return prev + i
		}
		prev = r.End
	}
	return -1
}

// whereInPrompt says where an offset of the prompt is: its line, and the section
// whose template wrote it, which is where an author or caller can look.
func whereInPrompt(res *Result, at int, what string) string {
	if at < 0 {
		return ""
	}
	msg := fmt.Sprintf("%s line %d of the prompt", what, 1+strings.Count(res.Text[:at], "\n"))
	for _, s := range res.Sections {
		if at >= s.Start && at < s.End {
			msg += fmt.Sprintf(", written by section %s (%s.md.tmpl or the input it shows)", s.Name, s.Name)
		}
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
