package main

import (
	"fmt"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/spf13/cobra"
)

// versionCommand prints what a render would name as its provenance: the
// program's version, the commit it was built from (when go build recorded
// it) and the hash of the library it renders with (the embedded one, or
// --templates DIR), as GET /v1/version answers.
func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the program's version, the commit it was built from and the hash of its template library",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.library()
			if err != nil {
				return err
			}
			p, b := lib.Provenance(), engine.BuildInfo()
			if a.format == "json" {
				return a.writeOutput("", jsonBytes(struct {
					engine.Build
					Library      string `json:"library"`
					LibraryShort string `json:"library_short"`
				}{b, p.Library, p.Short}))
			}
			_, err = fmt.Fprintf(a.stdout, "render %s\n%slibrary %s\n", b.Version, revisionLine(b), p.Library)
			return err
		},
	}
}

// revisionLine is the line naming the commit the program was built from,
// "" when the build recorded none.
func revisionLine(b engine.Build) string {
	if b.Revision == "" {
		return ""
	}
	line := "revision " + b.Revision
	if b.Time != "" {
		line += " " + b.Time
	}
	if b.Modified {
		line += " (modified)"
	}
	return line + "\n"
}
