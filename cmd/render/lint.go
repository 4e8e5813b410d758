package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/lint"
	"github.com/promptsmith/promptsmith/internal/golden"
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
			lib, err := a.library()
			if err != nil {
				return err
			}
			root := "."
			if a.templates != "" {
				if root, err = engine.Root(a.templates); err != nil {
					return err
				}
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
	if len(names) == 0 {
		names = lib.Names()
	}
	var out []lint.Finding
	for _, name := range names {
		v, err := lib.Variant(name)
		if err != nil {
			var e *engine.Error
			if errors.As(err, &e) && e.Kind == engine.KindUsage {
				return nil, err
			}
			out = append(out, errorFindings(err)...)
			continue
		}
		out = append(out, v.Lint()...)
	}
	outcomes, err := golden.Examples(a.ctx, lib, filepath.Join(root, "testdata", "golden"), names, false)
	if err != nil {
		return nil, err
	}
	for _, o := range outcomes {
		if o.OK() || (o.Status == golden.Failed && o.Example == "") { // a broken variant is reported above
			continue
		}
		pos := o.File
		if o.Example != "" && o.Status == golden.Failed {
			if ex, err := lib.Variant(o.Variant); err == nil {
				if in, err := ex.Example(o.Example); err == nil {
					pos = in.Name
				}
			}
		}
		msg := strings.SplitN(o.String(), "\n", 2)[0]
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, "FAIL "), o.File+": ")
		if o.Status == golden.Failed {
			for _, f := range errorFindings(o.Err) {
				f.Message = "example " + o.Example + ": " + f.Message
				if f.Position == "" {
					f.Position = pos
				}
				out = append(out, f)
			}
			continue
		}
		out = append(out, lint.Finding{Position: pos, Severity: lint.Error, Message: msg + "; render test shows the diff"})
	}
	return out, nil
}

// errorFindings turns an engine error, with the problems in its Also, into
// findings.
func errorFindings(err error) []lint.Finding {
	e := engine.AsError(err)
	var out []lint.Finding
	for _, x := range append([]*engine.Error{e}, e.Also...) {
		msg := x.Reason
		if x.Field != "" {
			msg = x.Field + ": " + msg
		}
		if len(x.Hints) > 0 {
			msg += " (" + strings.Join(x.Hints, "; ") + ")"
		}
		out = append(out, lint.Finding{Position: x.Position, Severity: lint.Error, Message: msg})
	}
	return out
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
