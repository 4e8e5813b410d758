package check_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/promptsmith/promptsmith/engine/internal/check"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// section is the text one section's template wrote.
type section struct{ name, text string }

// prompt builds what the checks read from sections written one after the
// other, with when: conditions that are true exactly when they say "true".
func prompt(data map[string]any, sections ...section) check.Prompt {
	var text string
	type span struct {
		name       string
		start, end int
	}
	var spans []span
	for _, s := range sections {
		spans = append(spans, span{s.name, len(text), len(text) + len(s.text)})
		text += s.text
	}
	return check.Prompt{
		Text: text,
		Data: data,
		SectionAt: func(at int) string {
			for _, s := range spans {
				if at >= s.start && at < s.end {
					return s.name
				}
			}
			return ""
		},
		When: func(kind string, i int, rule manifest.TextRule) (bool, error) { return rule.When == "true", nil },
	}
}

var body = manifest.Verbatim{Name: "body", Field: "/body", Start: "<<<", End: ">>>"}

// TestHeadings holds that the required headings must each stand once, at
// the top level of the document, at their level, in the manifest's order;
// a failure says which heading and where, and for a repeated one which
// section wrote it.
func TestHeadings(t *testing.T) {
	m := &manifest.Manifest{Sections: []string{"a", "b"}, Verbatim: []manifest.Verbatim{body},
		Checks: manifest.Checks{Headings: []string{"# Title", "## Details"}}}
	cases := []struct {
		name     string
		sections []section
		body     string
		want     check.Result
	}{
		{"in order", []section{{"a", "# Title\n\ntext\n\n"}, {"b", "## Details\n"}}, "",
			check.Result{Check: "headings", OK: true}},
		{"a paragraph between", []section{{"a", "# Title\n\nSome words.\n\n## Details\n\nMore.\n"}}, "",
			check.Result{Check: "headings", OK: true}},
		{"missing", []section{{"a", "# Title\n"}}, "",
			check.Result{Check: "headings", Section: "a",
				Message: `"## Details" is missing: no heading of the prompt comes near it; by the order of checks.headings it belongs after "# Title" (line 1 of the prompt)`}},
		{"at another level", []section{{"a", "# Title\n\n### Details\n"}}, "",
			check.Result{Check: "headings", Section: "a",
				Message: `"## Details" is missing; the prompt has "### Details" (at level 3, not 2) at line 3 of the prompt, written by section a (a.md.tmpl or the input it shows)`}},
		{"out of order", []section{{"a", "## Details\n\n"}, {"b", "# Title\n"}}, "",
			check.Result{Check: "headings", Message: `"## Details" at line 1 comes before "# Title" at line 3`}},
		{"twice", []section{{"a", "# Title\n\n"}, {"b", "# Title\n\n## Details\n"}}, "",
			check.Result{Check: "headings", Section: "b",
				Message: `"# Title" appears twice, at line 1 and at line 3 of the prompt, written by section b (b.md.tmpl or the input it shows)`}},
		{"inside a code fence", []section{{"a", "# Title\n\n```\n## Details\n```\n"}}, "",
			check.Result{Check: "headings", Section: "a",
				Message: `"## Details" is missing: at line 4 of the prompt it stands inside a code block, which the fence "` + "```" + `" at line 3 (section a) opened and no fence closes before it, so it is no heading`}},
		{"inside the verbatim region", []section{{"a", "# Title\n\n<<<\n## Details\n>>>\n"}}, "## Details",
			check.Result{Check: "headings", Section: "a",
				Message: `"## Details" is missing: the only one, at line 4 of the prompt, is inside the verbatim region body, whose headings belong to the text it embeds`}},
		{"a second one inside the verbatim region", []section{{"a", "# Title\n\n## Details\n\n<<<\n# Title\n>>>\n"}}, "# Title",
			check.Result{Check: "headings", OK: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := map[string]any{"body": c.body}
			rep, err := check.Run(prompt(data, c.sections...), m)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(rep.Results, func(r check.Result) bool { return r.Check == "headings" })
			if i < 0 {
				t.Fatalf("no headings check in %+v", rep.Results)
			}
			if got := rep.Results[i]; got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestTextRules holds that forbidden text fails where it is found, naming
// the line and the section that wrote it, that required text fails where
// it is missing, that a rule whose when: is false does not run, and that
// outside_verbatim ignores what the verbatim regions hold.
func TestTextRules(t *testing.T) {
	cases := []struct {
		name     string
		forbid   []manifest.TextRule
		require  []manifest.TextRule
		sections []section
		want     []check.Result
	}{
		{"forbidden text absent", []manifest.TextRule{{Text: "SECRET"}}, nil,
			[]section{{"a", "all clear\n"}},
			[]check.Result{{Check: `forbid "SECRET"`, OK: true}}},
		{"forbidden text found", []manifest.TextRule{{Text: "SECRET"}}, nil,
			[]section{{"a", "one\n"}, {"b", "two\nthe SECRET\n"}},
			[]check.Result{{Check: `forbid "SECRET"`, Section: "b",
				Message: "found at line 3 of the prompt, written by section b (b.md.tmpl or the input it shows)"}}},
		{"forbidden text where no section wrote it", []manifest.TextRule{{Text: "SECRET"}}, nil,
			[]section{{"", "SECRET\n"}},
			[]check.Result{{Check: `forbid "SECRET"`, Message: "found at line 1 of the prompt"}}},
		{"when false", []manifest.TextRule{{Text: "SECRET", When: "false"}}, []manifest.TextRule{{Text: "never", When: "false"}},
			[]section{{"a", "SECRET\n"}},
			nil},
		{"when true", []manifest.TextRule{{Text: "SECRET", When: "true"}}, []manifest.TextRule{{Text: "never", When: "true"}},
			[]section{{"a", "SECRET\n"}},
			[]check.Result{
				{Check: `forbid "SECRET"`, Section: "a", Message: "found at line 1 of the prompt, written by section a (a.md.tmpl or the input it shows)"},
				{Check: `require "never"`, Message: "not found in the prompt"},
			}},
		{"required text present", nil, []manifest.TextRule{{Text: "# Note"}},
			[]section{{"a", "x\n# Note\n"}},
			[]check.Result{{Check: `require "# Note"`, OK: true}}},
		{"inside verbatim counts by default", []manifest.TextRule{{Text: "raw"}}, nil,
			[]section{{"a", "<<<\nraw\n>>>\n"}},
			[]check.Result{{Check: `forbid "raw"`, Section: "a", Message: "found at line 2 of the prompt, written by section a (a.md.tmpl or the input it shows)"}}},
		{"outside verbatim ignores the region", []manifest.TextRule{{Text: "raw", OutsideVerbatim: true}}, []manifest.TextRule{{Text: "raw", OutsideVerbatim: true}},
			[]section{{"a", "<<<\nraw\n>>>\n"}},
			[]check.Result{{Check: `forbid "raw"`, OK: true}, {Check: `require "raw"`, Message: "not found in the prompt"}}},
		{"outside verbatim finds it after the region", []manifest.TextRule{{Text: "raw", OutsideVerbatim: true}}, nil,
			[]section{{"a", "<<<\nraw\n>>>\n"}, {"b", "raw too\n"}},
			[]check.Result{{Check: `forbid "raw"`, Section: "b", Message: "found at line 4 of the prompt, written by section b (b.md.tmpl or the input it shows)"}}},
		{"the marker lines are outside", []manifest.TextRule{{Text: ">>>", OutsideVerbatim: true}}, nil,
			[]section{{"a", "<<<\nraw\n>>>\n"}},
			[]check.Result{{Check: `forbid ">>>"`, Section: "a", Message: "found at line 3 of the prompt, written by section a (a.md.tmpl or the input it shows)"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &manifest.Manifest{Sections: []string{"a", "b"}, Verbatim: []manifest.Verbatim{body},
				Checks: manifest.Checks{Forbid: c.forbid, Require: c.require}}
			rep, err := check.Run(prompt(map[string]any{"body": "raw"}, c.sections...), m)
			if err != nil {
				t.Fatal(err)
			}
			got := rep.Results[1:] // after the verbatim check
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestWhenError holds that a when: condition that cannot be evaluated stops
// the checks with its error, rather than passing or failing the rule.
func TestWhenError(t *testing.T) {
	boom := errors.New("boom")
	p := prompt(nil, section{"a", "text\n"})
	p.When = func(string, int, manifest.TextRule) (bool, error) { return false, boom }
	cases := []struct {
		name   string
		checks manifest.Checks
	}{
		{"forbid", manifest.Checks{Forbid: []manifest.TextRule{{Text: "x", When: "{{ .a }}"}}}},
		{"require", manifest.Checks{Require: []manifest.TextRule{{Text: "x", When: "{{ .a }}"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := check.Run(p, &manifest.Manifest{Checks: c.checks})
			if !errors.Is(err, boom) || rep != nil {
				t.Errorf("Run = %v, %v; want the condition's error", rep, err)
			}
		})
	}
}

// TestMaxBytes holds that a prompt may be exactly max_bytes long and no
// longer, and that the message gives both sizes as a person reads them.
func TestMaxBytes(t *testing.T) {
	cases := []struct {
		name string
		max  int
		text string
		want check.Result
	}{
		{"under", 10, "abc", check.Result{Check: "max_bytes", OK: true, Message: "the prompt is 3 bytes; the limit is 10 bytes"}},
		{"exactly", 3, "abc", check.Result{Check: "max_bytes", OK: true, Message: "the prompt is 3 bytes; the limit is 3 bytes"}},
		{"over", 2, "abc", check.Result{Check: "max_bytes", Message: "the prompt is 3 bytes; the limit is 2 bytes"}},
		{"counted in bytes", 2, "é!", check.Result{Check: "max_bytes", Message: "the prompt is 3 bytes; the limit is 2 bytes"}},
		{"in KiB", 1 << 10, string(make([]byte, 2<<10)), check.Result{Check: "max_bytes", Message: "the prompt is 2 KiB; the limit is 1 KiB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := check.Run(prompt(nil, section{"a", c.text}), &manifest.Manifest{Checks: manifest.Checks{MaxBytes: c.max}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 1 || rep.Results[0] != c.want {
				t.Errorf("got  %+v\nwant %+v", rep.Results, c.want)
			}
		})
	}
	rep, err := check.Run(prompt(nil, section{"a", "abc"}), &manifest.Manifest{})
	if err != nil || len(rep.Results) != 0 || !rep.OK() {
		t.Errorf("no checks declared: %+v, %v", rep, err)
	}
}

// TestVerbatim holds that each verbatim field must stand in exactly one
// region of the prompt, byte for byte, between balanced marker lines, and
// that the regions found are reported.
func TestVerbatim(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		field   any
		want    check.Result
		regions []verbatim.Region
	}{
		{"exact", "# Note\n<<<\nraw {{ x }}\n>>>\n", "raw {{ x }}",
			check.Result{Check: "verbatim body", OK: true}, []verbatim.Region{{Name: "body", Start: 11, End: 22}}},
		{"empty", "<<<\n>>>\n", "",
			check.Result{Check: "verbatim body", OK: true}, []verbatim.Region{{Name: "body", Start: 4, End: 4}}},
		{"nested markers balance", "<<<\na\n<<<\nb\n>>>\n>>>\n", "a\n<<<\nb\n>>>",
			check.Result{Check: "verbatim body", OK: true}, []verbatim.Region{{Name: "body", Start: 4, End: 15}}},
		{"differs", "<<<\nraw {{ y }}\n>>>\n", "raw {{ x }}",
			check.Result{Check: "verbatim body", Message: "the text between the markers differs from /body at byte 7"}, nil},
		{"cut short", "<<<\nraw\n>>>\n", "raw {{ x }}",
			check.Result{Check: "verbatim body", Message: "the text between the markers differs from /body at byte 3"}, nil},
		{"no region", "# Note\n", "raw",
			check.Result{Check: "verbatim body", Message: `found 0 regions between "<<<" and ">>>" lines; the templates must write exactly one`}, nil},
		{"two regions", "<<<\nraw\n>>>\n<<<\nraw\n>>>\n", "raw",
			check.Result{Check: "verbatim body", Message: `found 2 regions between "<<<" and ">>>" lines; the templates must write exactly one`}, nil},
		{"unbalanced", "<<<\nraw\n", "raw",
			check.Result{Check: "verbatim body", Message: `the markers in the prompt do not balance: 1 start marker(s) "<<<" without an end marker`}, nil},
		{"an end first", ">>>\nraw\n", "raw",
			check.Result{Check: "verbatim body", Message: `the markers in the prompt do not balance: line 1: end marker ">>>" without a start marker`}, nil},
	}
	m := &manifest.Manifest{Verbatim: []manifest.Verbatim{body}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := check.Run(prompt(map[string]any{"body": c.field}, section{"a", c.text}), m)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 1 || rep.Results[0] != c.want {
				t.Errorf("got  %+v\nwant %+v", rep.Results, c.want)
			}
			if !reflect.DeepEqual(rep.Regions, c.regions) {
				t.Errorf("regions %+v, want %+v", rep.Regions, c.regions)
			}
			if rep.OK() != c.want.OK {
				t.Errorf("OK() = %v", rep.OK())
			}
		})
	}
}

// TestFailure holds that a report with failed checks is one check error for
// the variant, at the manifest, listing every failed check with its
// message, and that a report without one is no error.
func TestFailure(t *testing.T) {
	cases := []struct {
		name    string
		results []check.Result
		reason  string
	}{
		{"all pass", []check.Result{{Check: "headings", OK: true}, {Check: "max_bytes", OK: true, Message: "fine"}}, ""},
		{"none", nil, ""},
		{"one fails", []check.Result{{Check: "headings", OK: true}, {Check: `forbid "X"`, Message: "found at line 2 of the prompt, written by section b (b.md.tmpl or the input it shows)", Section: "b"}},
			`1 check(s) failed: forbid "X": found at line 2 of the prompt, written by section b (b.md.tmpl or the input it shows)`},
		{"two fail", []check.Result{{Check: "headings", Message: `"# A" is missing`}, {Check: "max_bytes", OK: true}, {Check: `require "B"`, Message: "not found in the prompt"}},
			`2 check(s) failed: headings: "# A" is missing; require "B": not found in the prompt`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := &check.Report{Results: c.results}
			e := rep.Failure("note", "templates/note/prompt.yaml")
			if c.reason == "" {
				if e != nil || !rep.OK() {
					t.Errorf("Failure = %v, OK = %v; want nil, true", e, rep.OK())
				}
				return
			}
			want := &problem.Error{Kind: problem.KindCheck, Variant: "note", Position: "templates/note/prompt.yaml", Reason: c.reason,
				Hints: []string{"the rendered prompt breaks a rule of the manifest's checks: fix the template or the input that produced it"}}
			if !reflect.DeepEqual(e, want) || rep.OK() {
				t.Errorf("Failure = %+v, OK = %v\nwant %+v", e, rep.OK(), want)
			}
		})
	}
}

// TestRunOrder holds the order of the results: verbatim regions, headings,
// forbid, require, then max_bytes, and that Run's failure names the
// section that wrote the forbidden text.
func TestRunOrder(t *testing.T) {
	m := &manifest.Manifest{Verbatim: []manifest.Verbatim{body}, Checks: manifest.Checks{
		Headings: []string{"# Note"},
		Forbid:   []manifest.TextRule{{Text: "SECRET"}},
		Require:  []manifest.TextRule{{Text: "# Note"}},
		MaxBytes: 1000,
	}}
	rep, err := check.Run(prompt(map[string]any{"body": "b"}, section{"title", "# Note\n\n"}, section{"tail", "SECRET\n<<<\nb\n>>>\n"}), m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Check)
	}
	if want := []string{"verbatim body", "headings", `forbid "SECRET"`, `require "# Note"`, "max_bytes"}; !slices.Equal(got, want) {
		t.Errorf("checks %q, want %q", got, want)
	}
	want := `1 check(s) failed: forbid "SECRET": found at line 3 of the prompt, written by section tail (tail.md.tmpl or the input it shows)`
	if e := rep.Failure("note", "p.yaml"); e == nil || e.Reason != want || rep.Results[2].Section != "tail" {
		t.Errorf("Failure = %v, section %q\nwant %s", e, rep.Results[2].Section, want)
	}
	if len(rep.Outline) != 1 || rep.Outline[0].Text != "Note" || rep.Outline[0].Line != 1 {
		t.Errorf("outline %+v", rep.Outline)
	}
}
