package check_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine/internal/check"
	"github.com/promptsmith/promptsmith/internal/manifest"
)

// TestMissingHeadingSaysWhy holds that a required heading the prompt lacks
// is reported at the manifest line that requires it, with the heading the
// author most likely meant (another case, another level, a near spelling)
// and the template text that wrote it, or with the block that swallowed it:
// a code fence left open in an earlier section, named by its line of the
// prompt and its section, an HTML block, an indentation.
func TestMissingHeadingSaysWhy(t *testing.T) {
	want := []string{"# Guide", "## Review Checklist", "## Output"}
	cases := []struct {
		name     string
		sections []section
		section  string   // the Result's Section
		message  []string // phrases of the message, in order
		hint     []string // phrases of the hint
	}{
		{"another case", []section{{"intro", "# Guide\n\n"}, {"review", "## Review checklist\n\n- one\n\n"}, {"out", "## Output\n"}},
			"review",
			[]string{`"## Review Checklist" is missing; the prompt has "## Review checklist" (another case) at line 3 of the prompt, written by section review`},
			[]string{`if that is the heading, write it as "## Review Checklist" at review.md.tmpl:1:1`, "change this entry of checks.headings"}},
		{"another level", []section{{"intro", "# Guide\n\n"}, {"review", "### Review Checklist\n\n"}, {"out", "## Output\n"}},
			"review",
			[]string{`the prompt has "### Review Checklist" (at level 3, not 2) at line 3 of the prompt`},
			[]string{`write it as "## Review Checklist" at review.md.tmpl:1:1`}},
		{"a near spelling", []section{{"intro", "# Guide\n\n"}, {"review", "## Reveiw Checklist\n\n"}, {"out", "## Output\n"}},
			"review",
			[]string{`the prompt has "## Reveiw Checklist" (a near spelling) at line 3`},
			[]string{`write it as "## Review Checklist" at review.md.tmpl:1:1`}},
		{"a fence left open in an earlier section", []section{
			{"intro", "# Guide\n\nAn example:\n\n```text\nleft open\n"},
			{"review", "\n## Review Checklist\n\n"}, {"out", "## Output\n"}},
			"intro",
			[]string{`"## Review Checklist" is missing: at line 8 of the prompt it stands inside a code block`,
				"which the fence \"```text\" at line 5 (section intro) opened and no fence closes before it"},
			[]string{"close that code block before the heading with a line of ```", "the fence comes from intro.md.tmpl:5:1"}},
		{"a fence the input wrote", []section{
			{"intro", "# Guide\n\n~~~~\n"}, // an action wrote it: no template text holds the line
			{"review", "## Review Checklist\n\n"}, {"out", "## Output\n"}},
			"intro",
			[]string{"the fence \"~~~~\" at line 3 (section intro) opened"},
			[]string{"with a line of ~~~~", "the fence comes from section intro (intro.md.tmpl or the input it shows)"}},
		{"an HTML block", []section{{"intro", "# Guide\n\n<details>\n"}, {"review", "## Review Checklist\n\n"}, {"out", "## Output\n"}},
			"intro",
			[]string{"at line 4 of the prompt it stands inside an HTML block, which \"<details>\" at line 3 (section intro) opened and only a blank line ends"},
			[]string{"leave a blank line before the heading"}},
		{"indented", []section{{"intro", "# Guide\n\n"}, {"review", "    ## Review Checklist\n\n"}, {"out", "## Output\n"}},
			"review",
			[]string{"at line 3 of the prompt it is indented four spaces or more, so it is no heading"},
			[]string{"remove the indentation before the heading"}},
		// Removed: where it belongs by the order of the required headings,
		// and the section that writes the text there.
		{"nothing near", []section{{"intro", "# Guide\n\n"}, {"review", "## Summary\n\n"}, {"out", "## Output\n"}},
			"review",
			[]string{`"## Review Checklist" is missing: no heading of the prompt comes near it; by the order of checks.headings it belongs after "# Guide" (line 1 of the prompt) and before "## Output" (line 5), where the prompt has "## Summary" (line 3)`},
			[]string{`if "## Summary" is that heading, write it as "## Review Checklist" at review.md.tmpl:1:1; if the manifest is wrong, change this entry of checks.headings`}},
		{"nothing near, between two sections", []section{{"intro", "# Guide\n\n"}, {"a", "Text.\n\n"}, {"b", "More.\n\n"}, {"out", "## Output\n"}},
			"a",
			[]string{`belongs after "# Guide" (line 1 of the prompt) and before "## Output" (line 7)`},
			[]string{`in the template of section a or b (a.md.tmpl)`}},
		{"nothing near, in the section of the heading before", []section{{"intro", "# Guide\n\nText.\n\n## Output\n"}},
			"intro",
			[]string{`belongs after "# Guide" (line 1 of the prompt) and before "## Output" (line 5)`},
			[]string{`in the template of section intro (intro.md.tmpl)`}},
	}
	// The templates' texts: each section's text, as its template holds it,
	// but for ~~~~, which stands for a fence an input field wrote.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := prompt(nil, c.sections...)
			p.Declared = func(key string, i int) int {
				if key != "headings" {
					t.Errorf("asked for the line of %s[%d]", key, i)
				}
				return 30 + i
			}
			p.WrittenAt = func(at int) string {
				start := 0
				for _, s := range c.sections {
					if at < start+len(s.text) {
						if strings.HasPrefix(p.Text[at:], "~~~~") {
							return ""
						}
						return s.name + ".md.tmpl:" + strconv.Itoa(1+strings.Count(s.text[:at-start], "\n")) + ":1"
					}
					start += len(s.text)
				}
				return ""
			}
			rep, err := check.Run(p, &manifest.Manifest{Checks: manifest.Checks{Headings: want}})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Results[0]
			if r.OK || r.Section != c.section {
				t.Errorf("result %+v, want section %q", r, c.section)
			}
			contains(t, "message", r.Message, c.message)
			e := rep.Failure("review", "templates/review/prompt.yaml")
			if e.Position != "templates/review/prompt.yaml:31" {
				t.Errorf("position %s, want the line of checks.headings[1]", e.Position)
			}
			contains(t, "hint", strings.Join(e.Hints, "\n"), c.hint)
		})
	}
}

// TestHeadingFailurePositions: the other failures of the headings check
// name the line of the heading they concern; a report whose failed checks
// declare no line stays at the manifest.
func TestHeadingFailurePositions(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"out of order", "## B\n\n# A\n", "m.yaml:11"},
		{"twice", "# A\n\n## B\n\n# A\n", "m.yaml:10"},
	}
	for _, c := range cases {
		p := prompt(nil, section{"a", c.text})
		p.Declared = func(_ string, i int) int { return 10 + i }
		rep, err := check.Run(p, &manifest.Manifest{Checks: manifest.Checks{Headings: []string{"# A", "## B"}}})
		if err != nil {
			t.Fatal(err)
		}
		if e := rep.Failure("v", "m.yaml"); e == nil || e.Position != c.want {
			t.Errorf("%s: %v, want position %s", c.name, e, c.want)
		}
	}
	rep, _ := check.Run(prompt(nil, section{"a", "# A\n"}), &manifest.Manifest{Checks: manifest.Checks{Headings: []string{"# B"}}})
	if e := rep.Failure("v", "m.yaml"); e == nil || e.Position != "m.yaml" {
		t.Errorf("without Declared: %v", e)
	}
}

func contains(t *testing.T, what, got string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the %s lacks %q:\n%s", what, w, got)
		}
	}
}
