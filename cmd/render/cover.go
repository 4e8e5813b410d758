package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/promptsmith/promptsmith/internal/librarylint"
)

// Branch coverage, for render test --cover and render lint --cover: which
// branches of the templates (the body of each if, with and range, each
// else, and the empty else of an if or with that has none) the examples
// take, over every example and budget_examples entry of a variant. See
// engine.Branch.

// variantCoverage is one variant's coverage, as --format json gives it.
type variantCoverage struct {
	Variant   string          `json:"variant"`
	Covered   int             `json:"covered"`
	Branches  int             `json:"branches"`
	Percent   float64         `json:"percent"`
	Uncovered []engine.Branch `json:"uncovered"`
}

// coverageReport is the coverage of the variants tested, and in total.
type coverageReport struct {
	Variants []variantCoverage `json:"variants"`
	Covered  int               `json:"covered"`
	Branches int               `json:"branches"`
	Percent  float64           `json:"percent"`
}

// coverage renders the examples of the named variants (all when none is)
// with their branches recorded.
func (a *app) coverage(lib *engine.Library, names []string) (coverageReport, error) {
	covs, err := librarylint.Coverage(a.ctx, lib, names)
	if err != nil {
		return coverageReport{}, err
	}
	rep := coverageReport{Variants: []variantCoverage{}}
	for _, c := range covs {
		covered, total := c.Counts()
		vc := variantCoverage{Variant: c.Variant(), Covered: covered, Branches: total, Percent: round1(c.Percent()), Uncovered: c.Uncovered()}
		if vc.Uncovered == nil {
			vc.Uncovered = []engine.Branch{}
		}
		rep.Variants = append(rep.Variants, vc)
		rep.Covered += covered
		rep.Branches += total
	}
	rep.Percent = round1(engine.Percent(rep.Covered, rep.Branches))
	return rep, nil
}

// round1 rounds a percentage down to a tenth, so that 99.96% is not shown
// as 100.0%.
func round1(p float64) float64 { return float64(int(p*10)) / 10 }

// reportTestsCovered is reportTests followed by the coverage of the
// examples: each branch no example takes, file:line:col, and the share of
// the branches taken per variant and in total. Coverage does not change
// the exit status: test fails on golden files only. With --format json the
// output is one object, {"tests": [...], "coverage": {...}}.
func (a *app) reportTestsCovered(lib *engine.Library, names []string, outcomes []golden.Outcome, caches []cacheOutcome) error {
	rep, err := a.coverage(lib, names)
	if err != nil {
		return err
	}
	var tests bytes.Buffer
	stdout := a.stdout
	a.stdout = &tests
	err = a.reportTests(outcomes, caches)
	a.stdout = stdout
	if err != nil {
		return err
	}
	if a.format == "json" {
		list := json.RawMessage(bytes.TrimSpace(tests.Bytes()))
		if len(list) == 0 || string(list) == "null" {
			list = json.RawMessage("[]")
		}
		return a.writeOutput("", jsonBytes(map[string]any{"tests": list, "coverage": rep}))
	}
	b := bytes.NewBuffer(tests.Bytes())
	b.WriteString(rep.text())
	return a.writeOutput("", b.Bytes())
}

// text is the report as render test --cover prints it.
func (rep coverageReport) text() string {
	var b strings.Builder
	width := len("total")
	for _, v := range rep.Variants {
		width = max(width, len(v.Variant))
		for _, br := range v.Uncovered {
			fmt.Fprintf(&b, "%s: not covered: %s\n", br.Position, br)
		}
	}
	for _, v := range rep.Variants {
		fmt.Fprintf(&b, "coverage %-*s %5.1f%% of %d branches", width, v.Variant, v.Percent, v.Branches)
		if n := len(v.Uncovered); n > 0 {
			fmt.Fprintf(&b, " (%d not covered)", n)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "coverage %-*s %5.1f%% of %d branches\n", width, "total", rep.Percent, rep.Branches)
	return b.String()
}
