package main

import (
	"fmt"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/spf13/cobra"
)

// versionCommand prints what a render would name as its provenance: the
// program's version and the hash of the library it renders with (the
// embedded one, or --templates DIR), as GET /v1/version answers.
func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the program's version and the hash of its template library",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.library()
			if err != nil {
				return err
			}
			p := lib.Provenance()
			if a.format == "json" {
				return a.writeOutput("", jsonBytes(struct {
					Version      string `json:"version"`
					Library      string `json:"library"`
					LibraryShort string `json:"library_short"`
				}{engine.Version(), p.Library, p.Short}))
			}
			_, err = fmt.Fprintf(a.stdout, "render %s\nlibrary %s\n", engine.Version(), p.Library)
			return err
		},
	}
}
