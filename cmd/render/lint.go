package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/lint"
	"github.com/promptsmith/promptsmith/internal/librarylint"
	"github.com/spf13/cobra"
)

func (a *app) lintCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "lint [variant...]",
		Short: "Check the library before any input is rendered: fields, templates, manifests, schemas, examples",
		Long: `lint checks the variants named (all when none is) without an input of yours:

  - every field every template reads, in every branch, is one the schema
    defines (with the closest name when it is not), and an optional field is
    read behind hasKey or get;
  - include and template names, sections and template files, the manifest;
  - the schema: every default and example is valid where it stands, every
    property has a description;
  - every example validates, renders, passes its checks and matches its
    golden file (render test --update accepts changed ones).

Each finding is one line, file:line:col: error|warning: message, like go vet;
--format json gives the same as a list. lint exits 1 on any error.`,
		Example: `  render lint
  render lint delegation --templates .`,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, root, err := a.workingCopy()
			if err != nil {
				return err
			}
			findings, err := lintLibrary(a, lib, root, args)
			if err != nil {
				return err
			}
			return a.reportLint(findings)
		},
	}
}

// lintLibrary gathers the findings of the named variants (all when none is).
func lintLibrary(a *app, lib *engine.Library, root string, names []string) ([]lint.Finding, error) {
	return librarylint.Findings(a.ctx, lib, librarylint.GoldenDir(root), names)
}

func (a *app) reportLint(findings []lint.Finding) error {
	errorsFound := slices.ContainsFunc(findings, func(f lint.Finding) bool { return f.Severity == lint.Error })
	if errorsFound {
		a.exit = 1
	}
	if a.format == "json" {
		if findings == nil {
			findings = []lint.Finding{}
		}
		return a.writeOutput("", jsonBytes(findings))
	}
	var b strings.Builder
	for _, f := range findings {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	if !errorsFound {
		fmt.Fprintf(&b, "lint: no errors (%d warning(s))\n", len(findings))
	}
	return a.writeOutput("", []byte(b.String()))
}
