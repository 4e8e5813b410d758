package main

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/spf13/cobra"
)

type renderOptions struct {
	input, example, output string
}

func (o *renderOptions) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.input, "input", "i", "", "input file (JSON or YAML), or - for stdin")
	cmd.Flags().StringVar(&o.example, "example", "", "render one of the variant's examples (see render examples <variant>)")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write to this file, atomically (default: stdout)")
}

func (a *app) loadInput(v *engine.Variant, o renderOptions) (engine.Input, error) {
	if o.example != "" {
		if o.input != "" {
			return engine.Input{}, usageError("give either -i or --example, not both")
		}
		return v.Example(o.example)
	}
	return a.readInput(o.input)
}

// render renders a variant; checkOnly prints the check report instead of the prompt.
func (a *app) render(variant string, o renderOptions, checkOnly bool) error {
	if err := a.checkAuditInputs(); err != nil {
		return err
	}
	a.onDemand = true
	v, err := a.variant(variant)
	if err != nil {
		return err
	}
	in, err := a.loadInput(v, o)
	if err != nil {
		return err
	}
	opts, err := a.tokenOptions()
	if err != nil {
		return err
	}
	if a.format != "json" && a.audit == "" {
		// Nothing shown or kept names the library: a render in a working
		// copy reads its variant, not every file for the library's hash.
		opts = append(opts, engine.WithoutLibraryHash())
	}
	res, err := v.Render(a.ctx, in, opts...)
	if res == nil {
		return err
	}
	if checkOnly {
		// A failed check's report goes to stdout and -o is left alone, as a
		// failed render's prompt is not written: -o holds reports that passed.
		out := o.output
		if err != nil {
			out = ""
			a.exit = 1
		}
		return a.writeOutput(out, a.checkReport(res))
	}
	return a.emit(v, in, res, err, o.output)
}

// emit writes a rendered prompt, or its Result under --format json, then
// records it in the audit store: only a prompt that was written is
// recorded. A prompt that failed a check is not written: under --format
// json its Result goes to stdout for tools, and -o is left alone.
func (a *app) emit(v *engine.Variant, in engine.Input, res *engine.Result, err error, output string) error {
	if err != nil {
		if a.format == "json" {
			_, _ = a.stdout.Write(jsonBytes(res))
		}
		return err
	}
	data := []byte(res.Text)
	switch a.format {
	case "json":
		data = jsonBytes(res)
	case "anthropic":
		data = jsonBytes(res.Anthropic())
	case "openai":
		data = jsonBytes(res.OpenAI())
	}
	if err := a.writeOutput(output, data); err != nil {
		return err
	}
	return a.record(v, in, res)
}

func (a *app) checkReport(res *engine.Result) []byte {
	if a.format == "json" {
		return jsonBytes(map[string]any{"variant": res.Variant, "ok": res.OK(), "checks": res.Checks, "ids": res.IDs,
			"sections": res.Sections, "tokens": res.Tokens, "budget": res.Budget})
	}
	var b strings.Builder
	for _, c := range res.Checks {
		status := "ok  "
		if !c.OK {
			status = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s", status, c.Check)
		if !c.OK && c.Message != "" {
			fmt.Fprintf(&b, ": %s", c.Message)
		}
		b.WriteByte('\n')
	}
	if len(res.Checks) == 0 {
		b.WriteString("ok   input is valid (the manifest declares no checks)\n")
	}
	b.WriteString(budgetReport(res))
	if res.Tokens > 0 {
		fmt.Fprintf(&b, "tokens %d:", res.Tokens)
		for _, s := range res.Sections {
			fmt.Fprintf(&b, " %s %d", s.Name, s.Tokens)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func (a *app) checkCommand() *cobra.Command {
	var opts renderOptions
	cmd := &cobra.Command{
		Use:   "check <variant> [-i FILE|-] [--example NAME]",
		Short: "Validate an input and run the manifest's checks, without printing the prompt",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.render(args[0], opts, true)
		},
	}
	opts.register(cmd)
	return cmd
}
