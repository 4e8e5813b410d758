package main

import (
	"fmt"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitlib"
	"github.com/promptsmith/promptsmith/tokens"
	"github.com/spf13/cobra"
)

// diffOptions are render diff's own flags.
type diffOptions struct {
	encoding string
	inputs   string
}

func (a *app) diffCommand() *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff BASE [HEAD]",
		Short: "Show which prompts a change alters: every example (and --inputs) rendered at two refs, diffed, with token deltas",
		Long: `render diff renders every example of every variant at BASE and at HEAD (a branch,
tag or commit of the working copy's git repository; HEAD defaults to the
working copy as it is, uncommitted edits included) and reports each prompt
that changed: a unified diff, and its tokens before and after, in all and per
section. Variants added or removed between the two are reported as such.

The report is Markdown, fit for a pull-request comment; --format json gives
the same for tools. A change that alters no prompt says so in one line.

--inputs DIR adds inputs of your own, for example captured from production:
DIR/<variant>/<name>.yaml (or .yml, .json), each rendered at both refs as the
examples are.`,
		Example: `  render diff main                 # what the working copy changes, against main
  render diff v1.4 v1.5            # between two tags
  render diff main --inputs prod/  # with inputs of your own
  render diff main --format json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.diff(args, o)
		},
	}
	cmd.Flags().StringVar(&o.encoding, "encoding", "o200k_base", "count tokens with this encoding (o200k_base, cl100k_base, p50k_base, r50k_base)")
	cmd.Flags().StringVar(&o.inputs, "inputs", "", "also render the inputs in this folder: <variant>/<name>.yaml, .yml or .json")
	return cmd
}

// side is one of the two libraries render diff compares.
type side struct {
	Ref         string `json:"ref,omitempty"`
	Commit      string `json:"commit,omitempty"`
	WorkingCopy bool   `json:"working_copy,omitempty"`
	lib         *engine.Library
	tree        *gitlib.Tree // nil for the working copy
}

// name is how the report names the side.
func (s *side) name() string {
	if s.WorkingCopy {
		return "the working copy"
	}
	return s.Ref
}

// label names the side in a diff's file names: the ref, or
// "working copy".
func (s *side) label() string {
	if s.WorkingCopy {
		return "working copy"
	}
	return s.Ref
}

// fail is err, an error of the side's library, naming the side.
func (s *side) fail(err error) error {
	if s.tree != nil {
		return s.tree.AtRef(err)
	}
	return err
}

// variantKey identifies a variant's files on this side: a commit's by
// git's hashes of them, a working copy's as other, a commit of the same
// repository, would, its files hashed as git hashes them. Two sides whose
// keys are equal render the variant alike. It is "" when only rendering
// tells: for the embedded library, or a link where the variant reads.
func (s *side) variantKey(name string, src sources, other *gitlib.Tree) string {
	if s.tree != nil {
		return s.tree.VariantKey(name)
	}
	if other == nil || !src.read {
		return ""
	}
	return other.VariantKeyOf(src.files, src.others, name)
}

func (a *app) diff(args []string, o diffOptions) error {
	if a.ref != "" {
		return (&engine.Error{Kind: engine.KindUsage, Flag: "--ref", Reason: "render diff takes its refs as arguments, not --ref"}).
			Hint("render diff %s [HEAD]", a.ref)
	}
	counter, err := tokens.New(o.encoding)
	if err != nil {
		return &engine.Error{Kind: engine.KindUsage, Flag: "--encoding", Reason: err.Error(), Err: err}
	}
	inputs, err := a.diffInputs(o.inputs)
	if err != nil {
		return err
	}
	base, err := a.sideAt(args[0])
	if err != nil {
		return err
	}
	head := &side{WorkingCopy: true}
	if len(args) == 2 {
		head, err = a.sideAt(args[1])
	} else {
		head.lib, err = a.library()
	}
	if err != nil {
		return err
	}
	report, err := a.compare(base, head, inputs, counter)
	if err != nil {
		return err
	}
	report.Encoding = o.encoding
	if a.format == "json" {
		return a.writeOutput("", jsonBytes(report))
	}
	return a.writeOutput("", []byte(report.markdown()))
}

// sideAt loads the library at ref.
func (a *app) sideAt(ref string) (*side, error) {
	t, err := a.tree(ref)
	if err != nil {
		return nil, err
	}
	lib, err := t.Load(a.ctx, a.limitOptions()...)
	if err != nil {
		return nil, err
	}
	return &side{Ref: ref, Commit: t.Commit, lib: lib, tree: t}, nil
}

// describe names a side with its commit, for the report's first line.
func (s *side) describe() string {
	if s.WorkingCopy {
		return s.name()
	}
	return fmt.Sprintf("`%s` (%s)", s.Ref, s.Commit[:min(12, len(s.Commit))])
}
