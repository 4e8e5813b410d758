package main

import (
	"io"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/promptsmith/promptsmith/internal/lsp"
	"github.com/spf13/cobra"
)

func (a *app) lspCommand() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "lsp [--templates DIR]",
		Short: "Serve the Language Server Protocol over stdin and stdout, for editors",
		Long: `lsp is a language server for the library's templates, schemas, manifests and
example inputs, for any editor with an LSP client (templates/README.md, "Editor
setup", says how to set up VS Code, Neovim, Helix and Zed).

It serves the library working copy of the editor's workspace folder (the folder
holding templates/ and schemas/, one above it or one below it), or the one
--templates names, and reads the files the editor has open as they are typed,
unsaved: diagnostics (what render lint and render test's checks find), completion
of fields from the input schema, functions, partials and keys, hover, go to
definition, document symbols, and the command promptsmith.renderExample (also a
code lens) that renders an example.

stdout carries the protocol; the server logs to stderr only (--verbose for more).`,
		Example: `  render lsp
  render lsp --templates ~/prompts`,
		Args: cobra.NoArgs,
		// The library is the workspace's, not the current directory's.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelDebug
			}
			opts := lsp.Options{Root: a.templates, Engine: a.limitOptions(),
				Log: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))}
			ctx, stop := signal.NotifyContext(a.ctx, syscall.SIGTERM)
			defer stop()
			closer, _ := a.stdin.(io.Closer)
			return lsp.Serve(ctx, a.stdin, a.stdout, closer, opts)
		},
	}
	cmd.Flags().BoolVar(&verbose, "verbose", false, "log every request's outcome to stderr")
	return cmd
}
