package main

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/typegen"
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
			v, err := a.variant(args[0])
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
	var manifest bool
	cmd := &cobra.Command{
		Use:   "schema <variant> [--lang json|ts|python] | schema --manifest",
		Short: "Print the JSON Schema of a variant's input, or its types in TypeScript or Python, or the manifest's schema",
		Long: `schema prints the JSON Schema of a variant's input (--lang json, the default), or
TypeScript or Python types generated from it. --manifest prints the JSON Schema
of prompt.yaml itself, for editors: each manifest's first line,
"# yaml-language-server: $schema=../manifest.schema.json", points the common
YAML extension at templates/manifest.schema.json.`,
		Example: `  render schema delegation
  render schema delegation --lang ts > delegation.ts
  render schema delegation --lang python > delegation_input.py
  render schema delegation --lang go > delegation/input.go
  render schema --manifest > templates/manifest.schema.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if manifest {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if manifest {
				return a.printManifestSchema()
			}
			choices := []string{"json"}
			for _, l := range typegen.AllLangs() {
				choices = append(choices, string(l))
			}
			if !slices.Contains(choices, lang) {
				return &engine.Error{Kind: engine.KindUsage, Flag: "--lang",
					Reason: fmt.Sprintf("unknown language %q: choose %s", lang, strings.Join(choices, ", ")),
					Hints:  []string{"run render schema --help"}}
			}
			v, err := a.variant(args[0])
			if err != nil {
				return err
			}
			if lang == "json" {
				return a.writeOutput("", v.SchemaJSON())
			}
			types, err := typegen.Generate(typegen.Lang(lang), v.Name(), v.SchemaJSON())
			if err != nil {
				return &engine.Error{Kind: engine.KindTemplate, Path: "schemas/" + v.Manifest().Schema + ".schema.json",
					Reason: err.Error(), Err: err}
			}
			return a.writeOutput("", types)
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "json",
		"json: the JSON Schema as written; ts: TypeScript types; python: Python TypedDicts; go: Go structs with json tags (package <variant>)")
	cmd.Flags().BoolVar(&manifest, "manifest", false, "print the JSON Schema of prompt.yaml instead")
	return cmd
}

// printManifestSchema prints templates/manifest.schema.json of the library
// in use: the working copy's under --templates, else the embedded one.
func (a *app) printManifestSchema() error {
	fsys := promptsmith.FS()
	if a.templates != "" {
		root, err := engine.Root(a.templates)
		if err != nil {
			return err
		}
		fsys = os.DirFS(root)
	}
	data, err := fs.ReadFile(fsys, "templates/manifest.schema.json")
	if err != nil {
		return fileError("templates/manifest.schema.json", "cannot read the manifest's schema", err)
	}
	return a.writeOutput("", data)
}
