package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/golden"
	"github.com/spf13/cobra"
)

// testLong is render test's help.
const testLong = `test renders every example of the variants named (all when none is), and the
examples a manifest's budget_examples fit to a number of tokens, and compares
each prompt with its golden file under testdata/golden/<variant>/ beside
templates/; it generates the TypeScript and Python types of each variant's
input (what render schema --lang prints) and compares them with
testdata/golden/types/<variant>.ts and .py. These are all the files go test
compares with what the library derives. The library is the working copy the
current directory is in, or --templates DIR.

A file that differs is shown as a unified diff; test exits 1 when any
differs, is missing, fails to render, or when a golden file has no example
or variant.

--update writes the golden files that differ or are missing, deletes those no
example or variant produces, and says which changed: review them, then
commit. It writes only into a working copy, never from the embedded library;
outside a working copy (and without --templates) test refuses to run.

An example pinned to a seed (seed.pinned in prompt.yaml) has the seed
builder's output for golden file: test names the seed when its prompt
differs, and --update never rewrites it (it exits 1 and says so); undo the
change, or unpin the example. test lists the pins per variant.

--cover also reports the branches of the templates (the body of each if,
with and range, each else, and the empty else of an if or with that has
none) that no example takes, at their file:line:col, and the share taken
per variant and in total; a budget_examples entry counts the branches of
the prompt it fits. Coverage does not change the exit status.

For a variant whose manifest declares cache breakpoints, test also renders
every example again once per volatile field (cache.volatile), that field
changed to another value its schema allows, and fails when the prompt up to
a breakpoint is not byte for byte the same, naming the breakpoint and the
first byte that differs. It prints each breakpoint's prefix in tokens
(--tokens, default o200k_base) against the providers' minimum cacheable
lengths: 1024 for OpenAI and Anthropic Sonnet/Opus, 2048 for Anthropic Haiku.`

func (a *app) testCommand() *cobra.Command {
	var update, cover bool
	cmd := &cobra.Command{
		Use:   "test [variant...] [--update]",
		Short: "Compare every example's prompt and every variant's types with their golden files under testdata/golden/",
		Long:  testLong,
		Example: `  render test
  render test space swarm
  render test --update
  render test --cover
  render test --templates ~/prompts`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.templates == "" {
				// The golden files are a working copy's: the library built
				// into render has none here to compare with, let alone write.
				cwd, _ := os.Getwd()
				e := &engine.Error{Kind: engine.KindUsage, Path: cwd,
					Reason: "no library working copy in this folder or above it (a folder holding templates/ and schemas/); render test compares a working copy's examples with its golden files",
					Hints:  []string{"cd into your working copy (the folder holding templates/, schemas/ and testdata/golden/), or give --templates DIR"}}
				if update {
					e.Flag = "--update"
					e.Reason = "no library working copy in this folder or above it (a folder holding templates/ and schemas/); --update writes golden files from a working copy only, never from the library built into render"
				}
				return e
			}
			lib, root, err := a.workingCopy()
			if err != nil {
				return err
			}
			for _, name := range args {
				if _, err := lib.Variant(name); err != nil && engine.AsError(err).Kind == engine.KindUsage {
					return err
				}
			}
			outcomes, err := golden.All(a.ctx, lib, filepath.Join(root, "testdata", "golden"), args, update)
			if err != nil {
				return err
			}
			caches, err := a.proveCaches(lib, args)
			if err != nil {
				return err
			}
			if cover {
				return a.reportTestsCovered(lib, args, outcomes, caches)
			}
			return a.reportTests(outcomes, caches)
		},
	}
	cmd.Flags().BoolVar(&cover, "cover", false, "also report the branches of the templates (if, else, with, range) that no example takes, per variant and in total")
	cmd.Flags().BoolVar(&update, "update", false, "rewrite the golden files that differ, write missing ones, delete stale ones (in a working copy only)")
	return cmd
}

func (a *app) reportTests(outcomes []golden.Outcome, caches []cacheOutcome) error {
	failed, changed := 0, 0
	type entry struct {
		Variant string `json:"variant"`
		Example string `json:"example,omitempty"`
		Lang    string `json:"lang,omitempty"`
		File    string `json:"file"`
		Status  string `json:"status"`
		Diff    string `json:"diff,omitempty"`
		Error   string `json:"error,omitempty"`
		Seed    string `json:"seed,omitempty"` // the seed the example is pinned to
		// Cache is an example's cache proof (status "cache ok" or
		// "cache failed"), in place of a golden file.
		Cache *cacheOutcome `json:"cache,omitempty"`
	}
	var list []entry
	var b strings.Builder
	acceptable := 0 // failures --update resolves: a file that differs, is missing or has no example
	diffs := 0      // of those, the ones printed with a diff
	refused := false
	pinnedBroken := 0 // pinned examples whose prompt differs from the seed's: --update will not (or did not) write them
	for _, o := range outcomes {
		if !o.OK() {
			failed++
		}
		switch {
		case o.Seed != "" && (o.Status == golden.Differs || o.Status == golden.Refused):
			pinnedBroken++
			refused = refused || o.Status == golden.Refused
		case o.Status == golden.Differs || o.Status == golden.Missing || o.Status == golden.Stale:
			acceptable++
			if o.Diff != "" {
				diffs++
			}
		}
		if o.Status == golden.Updated || o.Status == golden.Removed {
			changed++
		}
		e := entry{Variant: o.Variant, Example: o.Example, Lang: o.Lang, File: o.File, Status: string(o.Status), Diff: o.Diff, Seed: o.Seed}
		if o.Err != nil {
			e.Error = o.Err.Error()
		}
		list = append(list, e)
		if o.Status != golden.Same {
			b.WriteString(o.String())
			b.WriteByte('\n')
		}
	}
	cacheText, cacheFailed := cacheReport(caches)
	for i := range caches {
		status := "cache ok"
		if !caches[i].ok() {
			status = "cache failed"
		}
		list = append(list, entry{Variant: caches[i].Variant, Example: caches[i].Example, Status: status, Cache: &caches[i]})
	}
	if failed > 0 || cacheFailed > 0 {
		a.exit = 1
	}
	if a.format == "json" {
		return a.writeOutput("", jsonBytes(list))
	}
	b.WriteString(cacheText)
	fmt.Fprintf(&b, "%d golden file(s): %d ok, %d changed, %d failed\n", len(outcomes), len(outcomes)-failed-changed, changed, failed)
	b.WriteString(pinnedSummary(outcomes))
	if pinnedBroken > 0 {
		fmt.Fprintf(&b, "%d pinned example(s) no longer render as their seed does (FAIL above): render test --update never rewrites their golden files; undo the change, or unpin the example (seed.pinned in prompt.yaml)\n", pinnedBroken)
	}
	if refused {
		b.WriteString("--update wrote nothing: no golden file moves while a pinned example differs from its seed\n")
	}
	if len(caches) > 0 {
		fmt.Fprintf(&b, "%d example(s) with cache breakpoints: %d proved, %d failed (each volatile field changed, every breakpoint's prefix compared)\n",
			len(caches), len(caches)-cacheFailed, cacheFailed)
	}
	b.WriteString(nextStep(acceptable, diffs, pinnedBroken))
	return a.writeOutput("", []byte(b.String()))
}

// nextStep is the last line of render test: what --update would write,
// speaking of diffs only when some were printed; nothing when --update
// has nothing to write, or would refuse to.
func nextStep(acceptable, diffs, pinnedBroken int) string {
	switch {
	case acceptable == 0 || pinnedBroken > 0:
		return ""
	case diffs > 0:
		// The diffs above are what --update would write.
		return fmt.Sprintf("read the diffs above; if they are what you meant, render test --update writes them (%d file(s)), then commit them with the templates\n", acceptable)
	default:
		// Only missing or stale files: there is no diff to read.
		return fmt.Sprintf("render test --update writes the missing golden files and deletes those of no example or variant (%d file(s), listed above), then commit them with the templates\n", acceptable)
	}
}

// pinnedSummary says, per variant, how many examples are pinned to its
// seed: "pinned to seeds: squad 24 examples (seed 002_x.txt (...)), ...",
// or nothing when none is.
func pinnedSummary(outcomes []golden.Outcome) string {
	var parts []string
	count := map[string]int{}
	for _, o := range outcomes {
		if o.Seed == "" {
			continue
		}
		if count[o.Variant] == 0 {
			parts = append(parts, o.Variant)
		}
		count[o.Variant]++
	}
	if len(parts) == 0 {
		return ""
	}
	seeds := map[string]string{}
	for _, o := range outcomes {
		if o.Seed != "" {
			seeds[o.Variant] = o.Seed
		}
	}
	for i, v := range parts {
		parts[i] = fmt.Sprintf("%s %d example(s) to %s", v, count[v], seeds[v])
	}
	return "pinned: " + strings.Join(parts, "; ") + "\n"
}
