package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/spf13/cobra"
)

func (a *app) testCommand() *cobra.Command {
	var update bool
	cmd := &cobra.Command{
		Use:   "test [variant...] [--update]",
		Short: "Render every example and compare it with its golden file (testdata/golden/<variant>/<example>.md)",
		Long: `test renders every example of the variants named (all when none is), and the
examples a manifest's budget_examples fit to a number of tokens, and compares
each prompt with its golden file under testdata/golden/ beside templates/ (the
folder of --templates DIR, else the current directory). A prompt that differs
is shown as a unified diff; test exits 1 when any differs, is missing, fails
to render, or when a golden file has no example.

--update writes the golden files that differ or are missing, deletes those no
example produces, and says which changed: review them, then commit.`,
		Example: `  render test
  render test space swarm --templates .
  render test --update`,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, root, err := a.workingCopy()
			if err != nil {
				return err
			}
			for _, name := range args {
				if _, err := lib.Variant(name); err != nil && engine.AsError(err).Kind == engine.KindUsage {
					return err
				}
			}
			outcomes, err := golden.Examples(a.ctx, lib, filepath.Join(root, "testdata", "golden"), args, update)
			if err != nil {
				return err
			}
			return a.reportTests(outcomes)
		},
	}
	cmd.Flags().BoolVar(&update, "update", false, "rewrite the golden files that differ, write missing ones, delete stale ones")
	return cmd
}

func (a *app) reportTests(outcomes []golden.Outcome) error {
	failed, changed := 0, 0
	type entry struct {
		Variant string `json:"variant"`
		Example string `json:"example,omitempty"`
		File    string `json:"file"`
		Status  string `json:"status"`
		Diff    string `json:"diff,omitempty"`
		Error   string `json:"error,omitempty"`
	}
	var list []entry
	var b strings.Builder
	for _, o := range outcomes {
		if !o.OK() {
			failed++
		}
		if o.Status == golden.Updated || o.Status == golden.Removed {
			changed++
		}
		e := entry{Variant: o.Variant, Example: o.Example, File: o.File, Status: string(o.Status), Diff: o.Diff}
		if o.Err != nil {
			e.Error = o.Err.Error()
		}
		list = append(list, e)
		if o.Status != golden.Same {
			b.WriteString(o.String())
			b.WriteByte('\n')
		}
	}
	if failed > 0 {
		a.exit = 1
	}
	if a.format == "json" {
		return a.writeOutput("", jsonBytes(list))
	}
	fmt.Fprintf(&b, "%d golden file(s): %d ok, %d changed, %d failed\n", len(outcomes), len(outcomes)-failed-changed, changed, failed)
	return a.writeOutput("", []byte(b.String()))
}
