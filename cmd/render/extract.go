package main

import (
	"errors"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/spf13/cobra"
)

func (a *app) extractCommand() *cobra.Command {
	var input, output, variant, region string
	var depth int
	cmd := &cobra.Command{
		Use:   "extract [--depth N] [-i FILE|-] [-o FILE]",
		Short: "Print the prompt embedded verbatim in a rendered prompt (a subagent prompt's parent)",
		Long: `extract reads a rendered prompt and prints, byte for byte, the field a variant
embeds between marker lines: for a subagent prompt, its parent prompt.
--depth 2 gives the parent's parent, and so on down a chain of delegations.

The markers come from the manifest of --variant; when only one variant of the
library declares a verbatim region, it is used without asking.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.library()
			if err != nil {
				return err
			}
			vb, err := lib.VerbatimRegion(variant, region)
			if err != nil {
				return err
			}
			in, err := a.readPrompt(input)
			if err != nil {
				return err
			}
			text, err := verbatim.Of(vb).Extract(string(in.Data), depth)
			if err != nil {
				var e *engine.Error
				if errors.As(err, &e) && e.Position == "" {
					e.Position = in.Name
				}
				return err
			}
			if a.format == "json" {
				return a.writeOutput(output, jsonBytes(map[string]any{"depth": depth, "region": vb.Name, "text": text}))
			}
			return a.writeOutput(output, []byte(text))
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 1, "how many levels down: 1 is the parent, 2 the grandparent")
	cmd.Flags().StringVarP(&input, "input", "i", "", "the rendered prompt, or - for stdin")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file, atomically (default: stdout)")
	cmd.Flags().StringVar(&variant, "variant", "", "the variant whose markers to use")
	cmd.Flags().StringVar(&region, "region", "", "the verbatim region's name, when the variant declares several")
	return cmd
}
