package main

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/librarylint"
	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/spf13/cobra"
)

func (a *app) lintCommand() *cobra.Command {
	var cover bool
	cmd := &cobra.Command{
		Use:   "lint [variant...] [--cover]",
		Short: "Check the library before any input is rendered: fields and types, templates, manifests, schemas, examples",
		Long: `lint checks the variants named (all when none is) without an input of yours:

  - every field every template reads, in every branch (in a partial, of what
    its callers pass), is one the schema defines (with the closest name when
    it is not), and an optional field is read behind hasKey or get;
  - every expression fits the schema's types: no comparison of two types, no
    text outside a field's enum, no range over text, no index of a scalar or
    past maxItems, no arithmetic on text, no printf verb that misfits, no
    field of a text; every heading checks.headings requires has a template;
  - include and template names, sections and template files, the manifest;
    every variant that does not load, each with its error;
  - the schema: every default and example is valid where it stands, every
    property has a description;
  - what is there for nothing (warnings): a property of the schema that no
    template reads, nor the manifest; a partial (_name.tmpl) that nothing
    includes; a code fence (` + "```" + `) a section opens and never closes;
  - every example validates, renders and passes its checks;
  - every example pinned to a seed (seed.pinned in prompt.yaml) still
    renders as its golden file, the seed builder's output: one that does
    not is an error naming the seed. The pins are listed per variant.

Each finding is one line, file:line:col: error|warning: message, like go vet,
once per place: a problem many examples hit is one line that counts them.
Golden files that differ from what their examples render (or, for
types/<variant>.ts and .py, from the types generated from the schema), are
missing or belong to no example, or to no variant (when none is named),
follow in a section of their own: they are not lint errors (render test
fails on them, render test --update accepts them).
A section of information follows: for each variant, where the prefix a
provider can cache ends and why (the section, and the template line of
the first read of a field its manifest's cache.volatile lists), and the
sections that read nothing volatile but come after it. A cache breakpoint
whose prefix reads a volatile field is an error at the line of that read.
--cover adds a warning for each branch of a template (if, else, with,
range) that no example takes, as render test --cover lists them.

--format json gives the same as one list: each finding with its position,
severity, kind (lint, golden or coverage), message and, for a problem
examples hit, count and examples.

Outside a working copy (and without --templates) lint checks the library
built into render, without its examples, and says so on stderr.

lint exits 1 when the library has an error (a finding of kind lint and
severity error), else 0: warnings, golden files and coverage do not change
its exit status.`,
		Example: `  render lint
  render lint delegation --templates .
  render lint --cover --templates .`,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, root, err := a.workingCopy()
			if err != nil {
				return err
			}
			findings, err := lintLibrary(a, lib, root, args)
			if err != nil {
				return err
			}
			if cover {
				covs, err := librarylint.Coverage(a.ctx, lib, args)
				if err != nil {
					return err
				}
				findings = append(findings, librarylint.CoverageFindings(covs)...)
			}
			var pins []string
			if a.templates != "" { // the embedded library's examples are not checked
				pins = librarylint.Pins(lib, args)
			}
			return a.reportLint(findings, pins)
		},
	}
	cmd.Flags().BoolVar(&cover, "cover", false, "warn of each branch of the templates (if, else, with, range) that no example takes")
	return cmd
}

// lintLibrary gathers the findings of the named variants (all when none is).
// The library built into render, linted outside a working copy, has no
// golden files here: its templates, manifests and schemas are checked, and
// its examples are not compared with anything.
func lintLibrary(a *app, lib *engine.Library, root string, names []string) ([]lint.Finding, error) {
	goldenDir := librarylint.GoldenDir(root)
	if a.templates == "" {
		goldenDir = ""
		if a.format != "json" { // stderr is for tools then: errors only
			a.say("no working copy here: linting the library built into render, without examples or golden files (cd into your working copy, or give --templates DIR)")
		}
	}
	findings, err := librarylint.Findings(a.ctx, lib, goldenDir, names)
	if err != nil {
		return nil, err
	}
	return append(findings, cacheFindings(lib, names)...), nil
}

// cacheFindings are the report, for each variant that loads, of where
// its provider-cacheable prefix ends and why (information, KindCache).
func cacheFindings(lib *engine.Library, names []string) []lint.Finding {
	if len(names) == 0 {
		names = lib.Names()
	}
	var out []lint.Finding
	for _, name := range names {
		v, err := lib.Variant(name)
		if err != nil {
			continue
		}
		rep := v.CacheReport()
		out = append(out, lint.Finding{Position: rep.Position, Severity: lint.Info, Kind: lint.KindCache, Message: rep.Info()})
	}
	return out
}

// reportLint prints the findings: the library's (errors and warnings),
// then the branches no example takes, then the golden files, each in its
// own section, and a summary line. It sets exit status 1 on an error of
// the library.
func (a *app) reportLint(findings []lint.Finding, pins []string) error {
	findings = librarylint.Merge(findings)
	var problems, coverage, goldens, caches []lint.Finding
	errs, warnings := 0, 0
	for _, f := range findings {
		switch f.Kind {
		case lint.KindCache:
			caches = append(caches, f)
			continue
		case lint.KindGolden:
			goldens = append(goldens, f)
			continue
		case lint.KindCoverage:
			coverage = append(coverage, f)
		default:
			problems = append(problems, f)
		}
		if f.Severity == lint.Error {
			errs++
		} else {
			warnings++
		}
	}
	if errs > 0 {
		a.exit = 1
	}
	if a.format == "json" {
		if findings == nil {
			findings = []lint.Finding{}
		}
		return a.writeOutput("", jsonBytes(findings))
	}
	var b strings.Builder
	for _, f := range problems {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	// A section after findings is set apart by a blank line, and left out
	// when it has none.
	section := func(heading string, fs []lint.Finding) {
		if len(fs) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(heading)
		b.WriteByte('\n')
		for _, f := range fs {
			b.WriteString(f.String())
			b.WriteByte('\n')
		}
	}
	section("branches no example takes (add an example that takes each; render test --cover):", coverage)
	if len(pins) > 0 && len(problems) > 0 {
		b.WriteByte('\n')
	}
	for _, p := range pins {
		b.WriteString(p + "; render test --update never rewrites their golden files\n")
	}
	section("golden files (not lint errors: render test shows the diffs and fails on them, render test --update accepts them):", goldens)
	section("cacheable prefixes (information: where each variant's prompt stops being the same from request to request, and why; cache: in prompt.yaml):", caches)
	if errs == 0 {
		fmt.Fprintf(&b, "lint: no errors (%d warning(s))", warnings)
	} else {
		fmt.Fprintf(&b, "lint: %d error(s) (%d warning(s))", errs, warnings)
	}
	if len(goldens) > 0 {
		fmt.Fprintf(&b, "; %d golden file(s) out of date: run render test", len(goldens))
	}
	b.WriteByte('\n')
	return a.writeOutput("", []byte(b.String()))
}
