package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/spf13/cobra"
)

// record stores a rendered prompt when --audit FILE or URL is set.
func (a *app) record(v *engine.Variant, res *engine.Result) error {
	if a.audit == "" {
		return nil
	}
	store, err := audit.Open(a.audit)
	if err != nil {
		return openError(err)
	}
	defer store.Close()
	if _, err := store.Record(v, res); err != nil {
		return fileError(a.audit, "cannot record the prompt", err)
	}
	return nil
}

// openError is auditError for a store that could not be opened, said once
// when the reason already names the file or URL.
func openError(err error) error {
	err = auditError(err)
	if ce, ok := err.(*cliError); ok && ce.Path != "" && strings.Contains(ce.Reason, ce.Path) {
		ce.Path = ""
	}
	return err
}

func (a *app) auditCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Read the audit store that --audit writes: prompts by hash or id, and delegation chains",
		Long: `Every render made with --audit (or PROMPTSMITH_AUDIT) is recorded in the audit
store it names: a file path, for an embedded SQLite database, or a postgres:// URL,
for a PostgreSQL database that several render servers share. Each prompt is stored
with its ids and provenance (the library that rendered it), and every prompt it
embeds verbatim is stored as a prompt of its own, once, however many prompts embed
it. A chain of nested delegations can be read back from any of its subagent prompts.

A prompt is named by its hash (its address in the store, as audit chain lists it),
by the SHA-256 of its text (for a recorded prompt), by a unique prefix of either,
or by an id such as a delegation_id. Reading opens the store read-only: it never
creates a database or changes one.`,
	}
	// lookup opens the store and finds the prompt a command names.
	lookup := func(key string, use func(store *audit.Store, hash string) error) error {
		if a.audit == "" {
			return usageError("name the audit store with --audit FILE (or a postgres:// URL) or PROMPTSMITH_AUDIT")
		}
		store, err := audit.OpenReadOnly(a.audit)
		if err != nil {
			return openError(err)
		}
		defer store.Close()
		hash, err := store.Resolve(key)
		if err != nil {
			return auditError(err)
		}
		return auditError(use(store, hash))
	}
	chain := &cobra.Command{
		Use:   "chain <hash|id>",
		Short: "List a prompt and the prompts it embeds, down to the root of its delegation chain",
		Long: `chain lists a prompt and the prompts it embeds, one line each from the subagent
to the root: level, hash, variant, the short hash of the library that rendered it
(- for a prompt known only as embedded in another), and ids. --format json gives
the same entries with sizes, SHA-256 and full provenance; render audit show prints
a prompt's text.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return lookup(args[0], a.printChain)
		},
	}
	show := &cobra.Command{
		Use:   "show <hash|id>",
		Short: "Print a stored prompt exactly as it was rendered",
		Long: `show prints a stored prompt exactly as it was rendered, byte for byte.
--format json gives it as an entry: hash, SHA-256, variant, ids, provenance,
size, the time it was recorded, its text, and, for a render fitted to a budget
(--max-tokens), the budget report: what was cut and the tokens that saved.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return lookup(args[0], a.printPrompt)
		},
	}
	cmd.AddCommand(chain, show)
	return cmd
}

func (a *app) printChain(store *audit.Store, hash string) error {
	entries, err := store.Links(hash)
	if err != nil {
		return err
	}
	if a.format == "json" {
		return a.writeOutput("", jsonBytes(entries))
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "level\thash\tvariant\tlibrary\tids")
	orDash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for i, e := range entries {
		var ids []string
		for _, k := range slices.Sorted(maps.Keys(e.IDs)) {
			ids = append(ids, k+"="+e.IDs[k])
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i, e.Hash, orDash(e.Variant), orDash(e.Provenance.Short), strings.Join(ids, " "))
	}
	tw.Flush()
	var out strings.Builder
	for line := range strings.Lines(b.String()) { // no padding after the last column
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	return a.writeOutput("", []byte(out.String()))
}

func (a *app) printPrompt(store *audit.Store, hash string) error {
	e, err := store.Get(hash)
	if err != nil {
		return err
	}
	if a.format == "json" {
		return a.writeOutput("", jsonBytes(e))
	}
	return a.writeOutput("", []byte(e.Text))
}
