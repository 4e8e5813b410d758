// Command render renders system prompts from the promptsmith template
// library, and serves, records, checks and writes them. Its commands (render
// help COMMAND says more of each; TestCommandList keeps this list whole):
//
// Rendering:
//
//	render <variant> [-i FILE|-] [--example NAME] [--format F] [-o FILE]   render a prompt
//	render check <variant> [-i FILE|-] [--example NAME]   validate an input and run the checks, printing no prompt
//	render extract [--depth N] [-i FILE|-] [-o FILE]      print the prompt embedded verbatim in a rendered one
//	render gather <variant> [--dir DIR] [--render]        fill in an input from the host, then print or render it
//	render list                                           the variants with their descriptions
//	render examples <variant>                             a variant's example inputs
//	render schema <variant> [--lang json|ts|python]       the schema of a variant's input, or its types
//	render version                                        the version, commit and library hash
//
// Serving and recording:
//
//	render serve [--addr HOST:PORT] [--templates DIR [--watch] | --repo PATH --label NAME=REF...]   the HTTP API
//	render audit chain <hash|id>                          a recorded prompt and those it embeds, to the root
//	render audit show <hash|id>                           a recorded prompt, byte for byte
//	render audit verify                                   check every row of the audit store
//	render audit prune [--older-than D] [--keep N]        remove old prompts, and what only they hold
//	render audit replay <hash|id> [--ref REF]             render a recorded prompt again from its input
//
// Writing a library:
//
//	render new <variant>                                  a working skeleton of a new variant
//	render lint [variant...] [--cover]                    check the library before any input is rendered
//	render test [variant...] [--update]                   compare the examples' prompts with their golden files
//	render diff BASE [HEAD]                               which prompts a change alters, with token deltas
//	render lsp                                            the Language Server Protocol, for editors
//
// Exit status: 0 on success, 1 when a check fails, 2 on bad input or usage.
package main

import (
	"context"
	"io"
	"os"
	"runtime/debug"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitlib"
	"github.com/spf13/cobra"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A command renders once and exits: collecting garbage less often
		// is time saved on every start (serve, which runs long, sets the
		// default back).
		debug.SetGCPercent(oneShotGCPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// oneShotGCPercent is the collector's setting for a command that exits when
// it is done (a 16 MiB parent prompt peaks near 100 MB of memory with it, as
// with the default).
const oneShotGCPercent = 400

// run is main without the process: a command run from a folder of a
// library working copy uses that copy.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: context.Background(), stdin: stdin, stdout: stdout, stderr: stderr, searchWorkingCopy: true}
	return a.execute(args)
}

// execute runs the command args name with a's streams, and returns the
// exit status.
func (a *app) execute(args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	if err := root.Execute(); err != nil {
		return a.fail(err)
	}
	return a.exit
}

// app holds the streams and the flags every command shares.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	templates      string
	format         string
	log            bool
	audit          string
	auditKey       string // the key file's path
	// auditInputs: --audit-inputs, the input and budget kept with each
	// prompt recorded, for render audit replay.
	auditInputs bool
	tokens      string
	limits      engine.Limits
	maxTokens   int
	exit        int
	// workingCopyFound: templates is the working copy the current
	// directory is in, not a folder --templates named.
	workingCopyFound bool
	// onDemand loads the library with engine.OnDemand: a command that
	// renders one variant and exits reads that variant alone.
	onDemand bool
	// searchWorkingCopy: with no --templates, look for the working copy
	// the current directory is in (useWorkingCopy). The package's tests
	// run in cmd/render, a folder of this repository, and leave it off
	// unless they test the search.
	searchWorkingCopy bool
	ref               string       // --ref: render from this ref of the working copy's repository
	refTree           *gitlib.Tree // the tree --ref loaded, named by errors of its variants
}

func (a *app) rootCommand() *cobra.Command {
	var opts renderOptions
	root := &cobra.Command{
		Use:   "render <variant> [-i FILE|-] [--example NAME] [--format text|json|anthropic|openai] [-o FILE]",
		Short: "Render a system prompt from the promptsmith template library",
		Long: `render turns a JSON or YAML input into the system prompt of a variant.

The library is the working copy the current directory is in (the nearest
folder up from it holding templates/ and schemas/), and render says so on
stderr; --templates DIR (or PROMPTSMITH_TEMPLATES) names another working copy.
Outside a working copy, render uses the library built into the binary.

Exit status: 0 on success, 1 when a check fails, 2 on bad input or usage.`,
		Example: `  render list
  render delegation --example restricted-tools
  render space -i input.yaml --format json
  render space --example crowded --format anthropic
  render extract --depth 2 -i subagent.md`,
		Args:          cobra.ExactArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.render(args[0], opts, false)
		},
	}
	root.PersistentFlags().StringVar(&a.templates, "templates", os.Getenv("PROMPTSMITH_TEMPLATES"),
		"library folder holding templates/ and schemas/ (default: the working copy the current directory is in, else the embedded library)")
	root.PersistentFlags().StringVar(&a.ref, "ref", "", refUsage)
	root.PersistentFlags().StringVar(&a.format, "format", "text", "output format: text or json; render <variant> also takes anthropic (system blocks split at the cache breakpoints) and openai (a system message and a prompt_cache_key)")
	root.PersistentFlags().BoolVar(&a.log, "log", false, "write JSON logs (log/slog) of each render to stderr")
	root.PersistentFlags().StringVar(&a.audit, "audit", os.Getenv("PROMPTSMITH_AUDIT"),
		"record every rendered prompt, and the prompts it embeds, in this audit store: a SQLite file, or a postgres:// URL that replicas share (see render audit)")
	root.PersistentFlags().StringVar(&a.auditKey, "audit-key", "", auditKeyUsage)
	root.PersistentFlags().BoolVar(&a.auditInputs, "audit-inputs", false, "with --audit: keep each render's input (canonical JSON, stored once) and budget, so that render audit replay can render it again; inputs hold what callers send, personal data included")
	root.PersistentFlags().StringVar(&a.tokens, "tokens", "",
		"count tokens per section with this encoding (o200k_base, cl100k_base, p50k_base, r50k_base); shown by --format json and render check")
	root.PersistentFlags().IntVar(&a.maxTokens, "max-tokens", 0,
		"fit the prompt to this many tokens (counted with --tokens), cutting what the variant's budget allows, lowest priority first")
	limits := engine.DefaultLimits()
	root.PersistentFlags().IntVar(&a.limits.InputBytes, "max-input", limits.InputBytes, "largest input in bytes")
	root.PersistentFlags().IntVar(&a.limits.Depth, "max-depth", limits.Depth, "deepest nesting of the input's values")
	root.PersistentFlags().IntVar(&a.limits.OutputBytes, "max-output", limits.OutputBytes, "most bytes the templates may write in one render, and the longest text a template may build")
	root.PersistentFlags().IntVar(&a.limits.ListItems, "max-list", limits.ListItems, "longest list a template function (until, seq, append, splitList, ...) may build")
	root.PersistentFlags().DurationVar(&a.limits.Timeout, "timeout", limits.Timeout, "longest a render may take")
	root.PersistentFlags().IntVar(&a.limits.FileBytes, "max-file", limits.FileBytes, "largest file a library may hold under templates/ and schemas/, in bytes, checked before it is read (labels, --ref, diff and the language server too)")
	root.PersistentFlags().IntVar(&a.limits.LibraryBytes, "max-library", limits.LibraryBytes, "most bytes a library's files under templates/ and schemas/ may hold together")
	opts.register(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError("%s", err.Error()) })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		switch a.format {
		case "text", "json":
		case "anthropic", "openai":
			if cmd != root {
				return usageError("--format %s shapes a rendered prompt as the provider's request: it is for render <variant>, not render %s", a.format, cmd.Name())
			}
		default:
			return usageError("--format must be text or json (or, for render <variant>, anthropic or openai), not %q", a.format)
		}
		a.useWorkingCopy(cmd)
		return nil
	}
	root.AddCommand(a.listCommand(), a.checkCommand(), a.extractCommand(), a.examplesCommand(), a.schemaCommand(),
		a.serveCommand(), a.auditCommand(), a.gatherCommand(), a.testCommand(), a.lintCommand(), a.newCommand())
	root.AddCommand(a.versionCommand(), a.lspCommand())
	root.AddCommand(a.diffCommand())
	return root
}
