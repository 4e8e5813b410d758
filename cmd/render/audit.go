package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/regular"
	"github.com/spf13/cobra"
)

// auditKeyEnv names the audit key file when --audit-key does not: a path,
// like the flag, never the key itself, so that the key stays out of the
// environment that every child process inherits (gather's probes among
// them).
const auditKeyEnv = "PROMPTSMITH_AUDIT_KEY"

const auditKeyUsage = "sign every record with the HMAC-SHA256 key in this file, and refuse to read a record that does not verify with it (default: the file " + auditKeyEnv + " names)"

// record stores a rendered prompt when --audit FILE or URL is set, signed
// with the key of the file PROMPTSMITH_AUDIT_KEY names, if it names one;
// with --audit-inputs, with its input (canonical JSON, as render serve
// keeps it) and budget, so that render audit replay renders it again.
func (a *app) record(v *engine.Variant, in engine.Input, res *engine.Result) error {
	if a.audit == "" {
		return nil
	}
	store, err := a.openAudit(a.ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	var o audit.Origin
	if a.auditInputs {
		o.Input = audit.CanonicalInput(in)
		if a.maxTokens > 0 {
			o.MaxTokens, o.Tokens = a.maxTokens, a.tokens
		}
	}
	if _, err := store.RecordFrom(a.ctx, v, res, o); err != nil {
		return fileError(a.audit, "cannot record the prompt", err)
	}
	return nil
}

// checkAuditInputs refuses --audit-inputs without --audit.
func (a *app) checkAuditInputs() error {
	if a.auditInputs && a.audit == "" {
		return usageError("--audit-inputs needs --audit FILE or URL: the inputs are kept in the audit store")
	}
	return nil
}

// openAudit opens the audit store --audit names, for recording or read-only,
// with the key in the file --audit-key names, or when it names none, the
// file PROMPTSMITH_AUDIT_KEY names, if any. The store's errors are returned
// as they are, for the caller to map; a key file that cannot be used is a
// usage error that names the flag or variable, never the key.
func (a *app) openAudit(ctx context.Context, readOnly bool) (*audit.Store, error) {
	keyFile, from := a.auditKey, "--audit-key"
	if keyFile == "" {
		keyFile, from = os.Getenv(auditKeyEnv), auditKeyEnv
	}
	var opts []audit.Option
	if keyFile != "" {
		key, err := readAuditKey(keyFile, from)
		if err != nil {
			return nil, err
		}
		opts = append(opts, audit.WithKey(key))
	}
	if readOnly {
		return audit.OpenReadOnly(ctx, a.audit, opts...)
	}
	return audit.Open(ctx, a.audit, opts...)
}

// withAuditStore opens the store --audit names read-only, with the key if
// one is given, for use, and closes it after.
func (a *app) withAuditStore(use func(store *audit.Store) error) error {
	if a.audit == "" {
		return usageError("name the audit store with --audit FILE (or a postgres:// URL) or PROMPTSMITH_AUDIT")
	}
	store, err := a.openAudit(a.ctx, true)
	if err != nil {
		return err
	}
	defer store.Close()
	return use(store)
}

// readAuditKey reads an audit key file: its bytes without the white space
// around them, at least audit.MinKeySize of them. Errors name the flag or
// variable (from) and not the path, which a mistaken setting could make
// the key itself.
func readAuditKey(path, from string) ([]byte, error) {
	hints := []string{"make a key file with: openssl rand -hex 32 > audit.key; " + auditKeyEnv + " holds its path, not the key"}
	data, err := regular.ReadFile(path, 0)
	if err != nil {
		hints = append(notRegularHint(err, "a key"), hints...)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is left out
		}
		return nil, &engine.Error{Kind: engine.KindUsage, Flag: from, Reason: "cannot read the audit key file: " + err.Error(), Hints: hints, Err: err}
	}
	key := bytes.TrimSpace(data)
	if len(key) < audit.MinKeySize {
		return nil, &engine.Error{Kind: engine.KindUsage, Flag: from,
			Reason: fmt.Sprintf("the audit key file holds %d bytes; a key needs at least %d", len(key), audit.MinKeySize), Hints: hints}
	}
	return key, nil
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
by the SHA-256 of its text (for a recorded prompt), by a unique prefix of either
of 8 hex digits or more,
or by an id such as a delegation_id. Reading opens the store read-only: it never
creates a database or changes one.

Nothing is shown unless it verifies: every prompt read is hashed again and
compared with the address it is stored under and the SHA-256 its row says, so a
changed byte or a redirected child pointer is an error naming the row (exit
status 1), never served. With --audit-key FILE (or PROMPTSMITH_AUDIT_KEY, which
holds the file's path) every record written is signed with the key, an
HMAC-SHA256 of each row, and a read refuses a row whose signature is missing or
wrong: a writer without the key cannot forge a record that verifies. render
audit verify checks the whole store.`,
	}
	cmd.AddCommand(a.auditChainCommand(), a.auditShowCommand(), a.auditVerifyCommand(), a.pruneCommand(), a.replayCommand())
	return cmd
}

// lookupPrompt opens the store and finds the prompt a command names.
func (a *app) lookupPrompt(key string, use func(store *audit.Store, hash string) error) error {
	return a.withAuditStore(func(store *audit.Store) error {
		hash, err := store.Resolve(a.ctx, key)
		if err != nil {
			return err
		}
		return use(store, hash)
	})
}

// auditChainCommand is render audit chain.
func (a *app) auditChainCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "chain <hash|id>",
		Short: "List a prompt and the prompts it embeds, down to the root of its delegation chain",
		Long: `chain lists a prompt and the prompts it embeds, one line each from the subagent
to the root: level, hash, variant, the short hash of the library that rendered it
(- for a prompt known only as embedded in another), and ids. --format json gives
the same entries with sizes, SHA-256 and full provenance; render audit show prints
a prompt's text.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.lookupPrompt(args[0], a.printChain)
		},
	}
}

// auditShowCommand is render audit show.
func (a *app) auditShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show <hash|id>",
		Short: "Print a stored prompt exactly as it was rendered",
		Long: `show prints a stored prompt exactly as it was rendered, byte for byte.
--format json gives it as an entry: hash, SHA-256, variant, ids, provenance,
size, the time it was recorded, its text, and, for a render fitted to a budget
(--max-tokens), the budget report: what was cut and the tokens that saved.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.lookupPrompt(args[0], a.printPrompt)
		},
	}
}

// auditVerifyCommand is render audit verify.
func (a *app) auditVerifyCommand() *cobra.Command {
	var since time.Duration
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Check every row of the audit store: addresses, SHA-256, embedded prompts, and signatures with --audit-key",
		Long: `verify reads every row of the audit store and checks that each prompt's parts
hash to the address it is stored under (a changed byte, a redirected child
pointer), that every prompt it embeds has a row, that its size and SHA-256 are
those of its text, and that no parts or ids stand without a prompt. With
--audit-key FILE (or PROMPTSMITH_AUDIT_KEY) it also checks that every row of
prompts and ids carries a signature that verifies with the key.

--since 24h checks only what was recorded in the last 24 hours (the prompts, their
parts, ids and inputs, and the prompts they embed as far as their text needs): a
daily check that reads what is new. Parts and ids whose prompt is gone have no time;
a whole verify finds them.

Each problem is one line, the table and the row's key, then what is wrong
(never a prompt's bytes); a summary line follows. --format json gives the same
as one object. Exit status: 0 when the store verifies, 1 when a problem was
found, 2 when the store cannot be opened or read.`,
		Example: `  render audit verify --audit audit.db
  render audit verify --audit audit.db --since 24h
  render audit verify --audit 'postgres://render@db:5432/audit' --audit-key /run/secrets/audit.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if since < 0 {
				return usageError("--since takes a positive duration, e.g. 24h")
			}
			return a.withAuditStore(func(store *audit.Store) error {
				var rep audit.Report
				var err error
				if since > 0 {
					rep, err = store.VerifySince(a.ctx, time.Now().Add(-since))
				} else {
					rep, err = store.Verify(a.ctx)
				}
				if err != nil {
					return err
				}
				return a.printVerify(rep)
			})
		},
	}
	verify.Flags().DurationVar(&since, "since", 0, "check only what was recorded in this last while (e.g. 24h): prompts, their parts and ids, their inputs")
	return verify
}

// pruneCommand is render audit prune.
func (a *app) pruneCommand() *cobra.Command {
	var (
		olderThan time.Duration
		o         audit.PruneOptions
	)
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Remove old recorded prompts, never one that a kept prompt embeds",
		Long: `prune removes the recorded prompts that match every criterion given: recorded
longer ago than --older-than, beyond the newest --keep, or served from --label. With
each go its parts, ids and input, and every prompt it embeds that no kept prompt
embeds, to any depth. A prompt that a kept prompt embeds is never removed, however
old: the parent of a delegation recorded today stays while the delegation stays, so
render audit verify is clean after a prune. --dry-run counts what would go and
removes nothing.

It runs in one transaction. On PostgreSQL it waits for the records being written
and holds new ones until it commits (renders wait, none fails); run it when the
store is quiet, or with a criterion that selects a day or a week at a time.`,
		Example: `  render audit prune --audit audit.db --older-than 720h --dry-run
  render audit prune --audit 'postgres://render@db:5432/audit' --older-than 2160h
  render audit prune --audit audit.db --label canary --keep 1000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.audit == "" {
				return usageError("name the audit store with --audit FILE (or a postgres:// URL) or PROMPTSMITH_AUDIT")
			}
			if olderThan < 0 || o.Keep < 0 {
				return usageError("--older-than and --keep take a positive value")
			}
			if olderThan > 0 {
				o.Before = time.Now().Add(-olderThan)
			}
			store, err := a.openAudit(a.ctx, false)
			if err != nil {
				return err
			}
			defer store.Close()
			rep, err := store.Prune(a.ctx, o)
			if err != nil {
				return err
			}
			return a.writeReport(rep, func() string { return pruneText(rep) })
		},
	}
	f := prune.Flags()
	f.DurationVar(&olderThan, "older-than", 0, "remove prompts recorded longer ago than this (e.g. 720h)")
	f.IntVar(&o.Keep, "keep", 0, "keep the newest N recorded prompts, remove the others")
	f.StringVar(&o.Label, "label", "", "remove prompts served from this label (render serve --repo)")
	f.BoolVar(&o.DryRun, "dry-run", false, "count what would be removed, remove nothing")
	return prune
}

func pruneText(rep audit.PruneReport) string {
	verb := "removed"
	if rep.DryRun {
		verb = "would remove"
	}
	return fmt.Sprintf("prune: %s %d prompts (%d parts, %d ids, %d inputs); %d prompts stay\n", verb, rep.Prompts, rep.Parts, rep.IDs, rep.Inputs, rep.Kept)
}

// writeReport writes v as JSON with --format json, and otherwise the text
// that text makes of it.
func (a *app) writeReport(v any, text func() string) error {
	if a.format == "json" {
		return a.writeOutput("", jsonBytes(v))
	}
	return a.writeOutput("", []byte(text()))
}

// printVerify prints a verify report, one line per problem and a summary,
// and sets exit status 1 when there are problems.
func (a *app) printVerify(rep audit.Report) error {
	if len(rep.Problems) > 0 {
		a.exit = 1
	}
	return a.writeReport(rep, func() string { return verifyText(rep) })
}

func verifyText(rep audit.Report) string {
	var b strings.Builder
	for _, p := range rep.Problems {
		b.WriteString(p.String() + "\n")
	}
	plural := func(n int64, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprint(n, " ", many)
	}
	result := "ok"
	if n := len(rep.Problems); n > 0 {
		result = plural(int64(n), "problem", "problems")
	}
	signatures := "signatures checked"
	if !rep.Signatures {
		signatures = "signatures not checked (no --audit-key)"
		if rep.Signed > 0 {
			signatures = fmt.Sprintf("signatures not checked (no --audit-key; %s signed)", plural(rep.Signed, "row is", "rows are"))
		}
	}
	fmt.Fprintf(&b, "verify: %s: %s, %s, %s; %s\n", result, plural(rep.Prompts, "prompt", "prompts"), plural(rep.Parts, "part", "parts"),
		plural(rep.IDs, "id", "ids"), signatures)
	return b.String()
}

func (a *app) printChain(store *audit.Store, hash string) error {
	entries, err := store.Links(a.ctx, hash)
	if err != nil {
		return err
	}
	return a.writeReport(entries, func() string { return chainTable(entries) })
}

// chainTable lists a chain's entries, one line each, under a header.
func chainTable(entries []audit.Entry) string {
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
	return out.String()
}

func (a *app) printPrompt(store *audit.Store, hash string) error {
	e, err := store.Get(a.ctx, hash)
	if err != nil {
		return err
	}
	return a.writeReport(e, func() string { return e.Text })
}
