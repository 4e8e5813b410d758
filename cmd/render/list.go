package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/typegen"
	"github.com/spf13/cobra"
)

func (a *app) listCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the variants with their descriptions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.library()
			if err != nil {
				return err
			}
			type entry struct {
				Name        string        `json:"name"`
				Description string        `json:"description,omitempty"`
				Examples    []string      `json:"examples,omitempty"`
				Error       *engine.Error `json:"error,omitempty"` // why the variant does not load
			}
			var list []entry
			for _, name := range lib.Names() {
				v, err := lib.Variant(name)
				if err != nil {
					list = append(list, entry{Name: name, Error: engine.AsError(err)})
					continue
				}
				list = append(list, entry{Name: name, Description: v.Description(), Examples: v.Examples()})
			}
			if a.format == "json" {
				return a.writeOutput("", jsonBytes(list))
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, e := range list {
				if e.Error != nil {
					fmt.Fprintf(tw, "%s\tBROKEN: %s\n", e.Name, strings.ReplaceAll(e.Error.Error(), "\n", " "))
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\n", e.Name, e.Description)
			}
			return tw.Flush()
		},
	}
}

func (a *app) examplesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "examples <variant>",
		Short: "List a variant's example inputs (render <variant> --example NAME renders one)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, v, err := a.variant(args[0])
			if err != nil {
				return err
			}
			if a.format == "json" {
				return a.writeOutput("", jsonBytes(v.Examples()))
			}
			return a.writeOutput("", []byte(strings.Join(v.Examples(), "\n")+"\n"))
		},
	}
}

func (a *app) schemaCommand() *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "schema <variant> [--lang json|ts|python]",
		Short: "Print the JSON Schema of a variant's input, or its types in TypeScript or Python",
		Example: `  render schema delegation
  render schema delegation --lang ts > delegation.ts
  render schema delegation --lang python > delegation_input.py`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			choices := []string{"json"}
			for _, l := range typegen.Langs() {
				choices = append(choices, string(l))
			}
			if !slices.Contains(choices, lang) {
				return &cliError{Kind: engine.KindUsage, Flag: "--lang",
					Reason: fmt.Sprintf("unknown language %q: choose %s", lang, strings.Join(choices, ", ")),
					Hints:  []string{"run render schema --help"}}
			}
			_, v, err := a.variant(args[0])
			if err != nil {
				return err
			}
			if lang == "json" {
				return a.writeOutput("", v.SchemaJSON())
			}
			types, err := typegen.Generate(typegen.Lang(lang), v.Name(), v.SchemaJSON())
			if err != nil {
				return &cliError{Kind: engine.KindTemplate, Path: "schemas/" + v.Manifest().Schema + ".schema.json",
					Reason: err.Error(), err: err}
			}
			return a.writeOutput("", types)
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "json",
		"json: the JSON Schema as written; ts: TypeScript types; python: Python TypedDicts")
	return cmd
}
