package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gather"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/spf13/cobra"
)

type gatherOptions struct {
	renderOptions
	dir    string
	render bool
}

func (a *app) gatherCommand() *cobra.Command {
	var opts gatherOptions
	cmd := &cobra.Command{
		Use:   "gather <variant> [-i BASE|-] [--dir DIR] [--render] [--format text|json] [-o FILE]",
		Short: "Fill in an input from the host (environment, git, project files), then print or render it",
		Long: `gather runs the probes the variant's manifest declares (gather: in
prompt.yaml) in DIR, the current directory by default: commands such as
git status, environment variables, files such as AGENTS.md, the date and
the time. It merges what they found into the base input (-i FILE, -i - for
stdin, or --example NAME; none means an empty one) and prints the completed
input as JSON, ready for render <variant> -i -, or renders it with --render.

Fields already in the base input win over gathered ones: pass a field to
pin it. A probe that fails or times out leaves its field out and prints a
warning on stderr ("render: warning: /field: why"); it never fails the
command. Gathering is the only step that reads the host and the clock, so a
saved gathered input renders the same prompt forever. Ctrl-C or SIGTERM
stops every probe.

DIR is read, never trusted to run anything: only regular files inside it
are read (no link out of it, no FIFO or device), and git runs there with
everything a repository's configuration could make it run switched off
(core.fsmonitor, hooks, filter and diff drivers, aliases, pagers, signature
checks, fetches), in its submodules' configuration too, and submodules
ignored. A repository that would make git read outside DIR (a .git file or
core.worktree naming another directory, DIR below the top of a work tree)
is refused with a warning that names the setting; a linked worktree (git
worktree add) and a submodule's checkout are read.

--format applies to --render (text or json, as for render); without it the
output is always JSON, and --format json writes warnings as JSON lines.`,
		Example: `  render gather swarm -i base.yaml > input.json
  render gather swarm -i base.yaml | render swarm -i -
  render gather swarm -i base.yaml --dir ../worktree --render`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.gather(cmd, args[0], opts)
		},
	}
	opts.register(cmd)
	cmd.Flags().Lookup("input").Usage = "base input file (JSON or YAML), or - for stdin; none means an empty base"
	cmd.Flags().Lookup("example").Usage = "use one of the variant's examples as the base input"
	cmd.Flags().StringVar(&opts.dir, "dir", "", "directory the probes run in (default: the current directory)")
	cmd.Flags().BoolVar(&opts.render, "render", false, "render the completed input instead of printing it")
	return cmd
}

func (a *app) gather(cmd *cobra.Command, variant string, o gatherOptions) error {
	dir := o.dir
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return &engine.Error{Kind: engine.KindUsage, Flag: "--dir", Reason: fmt.Sprintf("%s is not a directory", dir),
			Hints: []string{"point --dir at the project or worktree the prompt is for"}}
	}
	v, err := a.variant(variant)
	if err != nil {
		return err
	}
	opts, err := a.tokenOptions()
	if err != nil {
		return err
	}
	base := engine.Input{Name: "base input"}
	if o.input != "" || o.example != "" {
		if base, err = a.loadInput(v, o.renderOptions); err != nil {
			return err
		}
	}
	// Interrupted, the probes' process groups are killed rather than left
	// behind: they do not share the terminal's process group.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	found, warns := gather.Run(ctx, v, gather.Options{Dir: dir})
	if ctx.Err() != nil {
		return usageError("interrupted")
	}
	completed, more, err := gather.Complete(v, base, found)
	a.warn(append(warns, more...))
	if err != nil {
		return err
	}
	if !o.render {
		return a.writeOutput(o.output, completed)
	}
	in := engine.Input{Name: "gathered input", Data: completed}
	res, err := v.Render(ctx, in, opts...)
	if err != nil {
		err = basePositions(err, base)
	}
	if res == nil {
		return err
	}
	return a.emit(v, in, res, err, o.output)
}

// warn prints gather warnings on stderr, one a line: the field and why it
// was left out.
func (a *app) warn(warns []gather.Warning) {
	for _, w := range warns {
		if a.format == "json" {
			b, _ := json.Marshal(map[string]any{"warning": w})
			fmt.Fprintf(a.stderr, "%s\n", b)
			continue
		}
		a.say("warning: %s", w)
	}
}

// basePositions points input errors at the base file the caller wrote: the
// completed input they were found in exists only in memory. A field that
// is not in the base was gathered, and is said to be.
func basePositions(err error, base engine.Input) error {
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindInput {
		return err
	}
	var doc *input.Document
	if len(base.Data) > 0 {
		if doc, _ = input.Decode(base, nil); doc != nil {
			defer doc.Release()
		}
	}
	for _, x := range append([]*engine.Error{e}, e.Also...) {
		if !strings.HasPrefix(x.Field, "/") {
			continue
		}
		x.Position = ""
		if _, ok := lookup(doc, x.Field); ok {
			x.Position = doc.Position(x.Field)
		} else {
			x.Hints = append(x.Hints, "this field was gathered from the host, or is missing from both the base input and the host")
		}
	}
	return err
}

// lookup finds the value at ptr in a document that may be missing.
func lookup(doc *input.Document, ptr string) (any, bool) {
	if doc == nil {
		return nil, false
	}
	return pointer.Lookup(doc.Root, ptr)
}
