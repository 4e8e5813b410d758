package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// PruneOptions says which recorded prompts Prune may remove: those that
// match every criterion given. At least one is needed.
type PruneOptions struct {
	// Before removes prompts recorded before this time. Records keep their
	// time to the second: one recorded in Before's second counts as before.
	Before time.Time
	// Keep keeps the newest Keep recorded prompts and removes the others.
	Keep int
	// Label removes prompts served from this label (render serve --repo).
	Label string
	// DryRun counts what would be removed and removes nothing.
	DryRun bool
}

// PruneReport is what Prune removed (or would remove, on a dry run).
type PruneReport struct {
	Prompts int64 `json:"prompts"` // rows of prompts: recorded ones and those only they embedded
	Parts   int64 `json:"parts"`
	IDs     int64 `json:"ids"`
	Inputs  int64 `json:"inputs"`
	Kept    int64 `json:"kept"` // rows of prompts that stay
	DryRun  bool  `json:"dry_run"`
}

// pruneLock is the key of the advisory lock that a prune holds exclusive
// and every write transaction shared on PostgreSQL, so that no record can
// commit a reference to a prompt a prune is removing.
const pruneLock int64 = 0x7073_7072_756e_6531 // "psprune1"

// Prune removes the recorded prompts that match o, with their parts and
// ids, and every prompt they embed that no kept prompt embeds, to any
// depth, with the inputs no kept prompt names. A prompt that a kept prompt
// embeds is never removed, whatever o says, so Verify stays clean after a
// prune. It runs in one transaction: on PostgreSQL it waits for the writes
// under way to commit and holds new ones until it commits (an advisory
// lock every write transaction takes shared); SQLite has one writer.
func (s *Store) Prune(ctx context.Context, o PruneOptions) (PruneReport, error) {
	rep := PruneReport{DryRun: o.DryRun}
	if s.readOnly {
		return rep, &engine.Error{Kind: engine.KindUsage, Path: s.where, Reason: "the audit store was opened read-only; nothing was pruned"}
	}
	where, args := o.criteria()
	if where == "" {
		return rep, &engine.Error{Kind: engine.KindUsage, Reason: "prune needs a criterion: what to remove",
			Hints: []string{"give --older-than DURATION (e.g. 720h), --keep N, or --label NAME; --dry-run counts without removing"}}
	}
	if o.Label != "" && !s.origin {
		return rep, &engine.Error{Kind: engine.KindUsage, Path: s.where, Reason: "this store records no labels (schema version " + fmt.Sprint(originVersion) + " adds them)"}
	}
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	err := inTx(ctx, s.db, func(tx *sql.Tx) error {
		if err := s.be.lockForPrune(ctx, tx); err != nil {
			return err
		}
		if err := s.markKept(ctx, tx, where, args); err != nil {
			return err
		}
		if err := s.removeUnkept(ctx, tx, &rep); err != nil {
			return err
		}
		if o.DryRun {
			return errDryRun
		}
		return nil
	})
	if err != nil && err != errDryRun {
		return rep, &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "cannot prune the audit store: " + err.Error(), Err: err}
	}
	return rep, nil
}

// markKept fills prune_kept with the recorded prompts that stay (those
// where does not select) and every prompt they embed, to any depth.
func (s *Store) markKept(ctx context.Context, tx *sql.Tx, where string, args []any) error {
	for _, q := range s.be.keptTable() {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, s.be.rebind(`WITH RECURSIVE kept(hash) AS (
			SELECT hash FROM prompts WHERE variant <> '' AND NOT (`+where+`)
			UNION
			SELECT pa.child FROM parts pa JOIN kept k ON pa.hash = k.hash WHERE pa.child <> ''
		) INSERT INTO prune_kept SELECT hash FROM kept`), args...)
	return err
}

// removeUnkept removes the rows of ids, parts, prompts and inputs that no
// kept prompt needs, counting them in rep; on a dry run the transaction
// is rolled back after.
func (s *Store) removeUnkept(ctx context.Context, tx *sql.Tx, rep *PruneReport) error {
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM prune_kept`).Scan(&rep.Kept); err != nil {
		return err
	}
	steps := []struct {
		n    *int64
		drop string
	}{
		{&rep.IDs, `DELETE FROM ids WHERE hash NOT IN (SELECT hash FROM prune_kept)`},
		{&rep.Parts, `DELETE FROM parts WHERE hash NOT IN (SELECT hash FROM prune_kept)`},
		{&rep.Prompts, `DELETE FROM prompts WHERE hash NOT IN (SELECT hash FROM prune_kept)`},
	}
	if s.origin {
		steps = append(steps, struct {
			n    *int64
			drop string
		}{&rep.Inputs, `DELETE FROM inputs WHERE hash NOT IN (SELECT input FROM prompts)`})
	}
	for _, st := range steps {
		r, err := tx.ExecContext(ctx, st.drop)
		if err != nil {
			return err
		}
		if *st.n, err = r.RowsAffected(); err != nil {
			return err
		}
	}
	return nil
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// criteria is the SQL condition on prompts that o selects for removal,
// with its arguments; "" when o selects nothing.
func (o PruneOptions) criteria() (string, []any) {
	var conds []string
	var args []any
	if !o.Before.IsZero() {
		conds = append(conds, `recorded <= ?`)
		args = append(args, o.Before.UTC().Format(time.RFC3339))
	}
	if o.Label != "" {
		conds = append(conds, `label = ?`)
		args = append(args, o.Label)
	}
	if o.Keep > 0 {
		conds = append(conds, `hash NOT IN (SELECT hash FROM prompts WHERE variant <> '' ORDER BY recorded DESC, hash LIMIT ?)`)
		args = append(args, o.Keep)
	}
	return strings.Join(conds, " AND "), args
}
