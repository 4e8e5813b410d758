package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitlib"
	"github.com/promptsmith/promptsmith/tokens"
	"github.com/spf13/cobra"
)

// render audit replay renders a recorded prompt again, from the input
// render serve --audit-inputs kept, at the commit it was served from or
// at --ref, and says whether it is the same prompt: a receipt anyone
// holding the store and the repository can check, or what a change would
// have made of recorded traffic.

// replayReport is what render audit replay reports.
type replayReport struct {
	Hash      string `json:"hash"`    // the recorded prompt
	Variant   string `json:"variant"` // its variant
	Label     string `json:"label,omitempty"`
	Ref       string `json:"ref"`    // the ref rendered at: --ref, or the recorded commit
	Commit    string `json:"commit"` // the commit it names
	Identical bool   `json:"identical"`
	// Library is the hash of the library at Commit; LibraryMatches says
	// whether it is the one the record names.
	Library        string `json:"library"`
	LibraryMatches bool   `json:"library_matches"`
	Diff           string `json:"diff,omitempty"` // unified, the recorded prompt first
}

func (a *app) replayCommand() *cobra.Command {
	var repo string
	cmd := &cobra.Command{
		Use:   "replay <hash|id> [--ref REF] [--repo PATH]",
		Short: "Render a recorded prompt again from its recorded input, and say whether it is byte-identical",
		Long: `replay reads a recorded prompt and the input it was rendered from (kept by
render serve --audit-inputs), renders that input again with the same variant and
budget at the commit the prompt was served from (render serve --repo records it)
or at --ref REF, and compares: "identical" (exit status 0), or a unified diff,
the recorded prompt first (exit status 1). --format json gives the same as one
object. The commit is read from the git repository --repo names, else the one of
the working copy (--templates, or the current directory), from the commit's
tree, never the work tree.`,
		Example: `  render audit replay 3f2a9c1e7b40 --audit audit.db --repo /srv/prompts.git
  render audit replay 3f2a9c1e7b40 --audit audit.db --ref main`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withAuditStore(func(store *audit.Store) error {
				rep, err := a.replay(store, args[0], repo)
				if err != nil {
					return err
				}
				return a.printReplay(rep)
			})
		},
	}
	cmd.Flags().StringVar(&repo, "repo", "", "the git repository to read the commit from (default: the working copy's)")
	return cmd
}

// replay renders the prompt key names again, at --ref or its commit.
func (a *app) replay(store *audit.Store, key, repoDir string) (replayReport, error) {
	ctx := a.ctx
	hash, err := store.Resolve(ctx, key)
	if err != nil {
		return replayReport{}, err
	}
	e, err := store.Get(ctx, hash)
	if err != nil {
		return replayReport{}, err
	}
	data, err := store.Input(ctx, e.Input)
	if err != nil {
		return replayReport{}, err
	}
	ref := a.ref
	if ref == "" {
		ref = e.Commit
	}
	if ref == "" {
		return replayReport{}, (&engine.Error{Kind: engine.KindUsage, Flag: "--ref", Key: hash,
			Reason: "the prompt names no commit: it was not served from a label (render serve --repo)"}).
			Hint("give the ref to render it at with --ref REF")
	}
	repo, err := a.replayRepo(ctx, repoDir)
	if err != nil {
		return replayReport{}, err
	}
	tree, err := repo.Tree(ctx, ref)
	if err != nil {
		return replayReport{}, err
	}
	lib, err := tree.Load(ctx, a.limitOptions()...)
	if err != nil {
		return replayReport{}, tree.AtRef(err)
	}
	v, err := lib.Variant(e.Variant)
	if err != nil {
		return replayReport{}, tree.AtRef(err)
	}
	ropts, err := replayBudget(e)
	if err != nil {
		return replayReport{}, err
	}
	res, err := v.Render(ctx, engine.Input{Name: "input " + e.Input[:12], Data: data}, ropts...)
	if res == nil {
		return replayReport{}, tree.AtRef(err)
	}
	rep := replayReport{Hash: hash, Variant: e.Variant, Label: e.Label, Ref: ref, Commit: tree.Commit,
		Library: lib.Provenance().Library, LibraryMatches: lib.Provenance().Library == e.Provenance.Library, Identical: res.Text == e.Text}
	if !rep.Identical {
		rep.Diff = udiff.Unified("recorded:"+hash[:12], ref+":"+e.Variant, e.Text, res.Text)
	}
	return rep, nil
}

// replayRepo opens the repository replay reads commits from: --repo,
// else the working copy's (--templates, or the one the current
// directory is in).
func (a *app) replayRepo(ctx context.Context, dir string) (*gitlib.Repo, error) {
	if dir == "" {
		dir = a.templates
	}
	if dir == "" {
		if cwd, err := os.Getwd(); err == nil {
			dir, _ = findWorkingCopy(cwd)
		}
	}
	if dir == "" {
		return nil, (&engine.Error{Kind: engine.KindUsage, Flag: "--repo",
			Reason: "no git repository to read the commit from"}).
			Hint("give --repo PATH, or run render audit replay in the library's working copy")
	}
	return gitlib.Open(ctx, "", dir)
}

// replayBudget is the render option of the budget the prompt was
// rendered under, if any.
func replayBudget(e audit.Entry) ([]engine.RenderOption, error) {
	if e.MaxTokens <= 0 {
		return nil, nil
	}
	tc, err := tokens.New(e.Tokens)
	if err != nil {
		return nil, &engine.Error{Kind: engine.KindUsage, Key: e.Hash, Reason: "the recorded encoding cannot be counted with: " + err.Error(), Err: err}
	}
	return []engine.RenderOption{engine.FitTokens(int(e.MaxTokens), tc)}, nil
}

// printReplay prints the report, and makes the exit status 1 when the
// prompt differs.
func (a *app) printReplay(rep replayReport) error {
	if !rep.Identical {
		a.exit = 1
	}
	return a.writeReport(rep, func() string {
		var b strings.Builder
		at := rep.Ref
		if at != rep.Commit {
			at += " (commit " + rep.Commit[:12] + ")"
		}
		if rep.Identical {
			fmt.Fprintf(&b, "identical: %s (%s) renders byte for byte the same at %s\n", rep.Hash[:12], rep.Variant, at)
		} else {
			fmt.Fprintf(&b, "differs: %s (%s) renders otherwise at %s\n%s", rep.Hash[:12], rep.Variant, at, rep.Diff)
		}
		if !rep.LibraryMatches && rep.Ref == rep.Commit { // the recorded commit, yet another library
			fmt.Fprintf(&b, "note: the library at %s is %s, not the one the record names\n", at, rep.Library[:12])
		}
		return b.String()
	})
}
