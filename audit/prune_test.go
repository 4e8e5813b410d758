package audit_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// TestPrune: prune removes the recorded prompts it selects, with their
// parts, ids and inputs and what only they embed, and never a prompt that
// a kept prompt embeds, to any depth: verify is clean after it, and every
// kept chain reads back whole.
func TestPrune(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		store, clock := openClocked(t, b.target)
		record := func(res *engine.Result, label string) string {
			t.Helper()
			h, err := store.RecordFrom(ctx, delegation(t), res, audit.Origin{Label: label, Input: []byte(`{"task":"` + res.IDs["delegation_id"] + `"}`)})
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		// January: a, and b that embeds a; and c under the label canary.
		a := delegate(t, "the old root", "old task a")
		ha := record(a, "production")
		hb := record(delegate(t, a.Text, "old task b"), "production")
		hc := record(delegate(t, "a canary root", "canary task"), "canary")
		// March: d, which embeds a, and e.
		*clock = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		hd := record(delegate(t, a.Text, "new task d"), "production")
		*clock = clock.Add(time.Hour)
		he := record(delegate(t, "the new root", "new task e"), "production")

		if _, err := store.Prune(ctx, audit.PruneOptions{}); err == nil {
			t.Fatal("a prune without a criterion ran")
		}
		before := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		dry, err := store.Prune(ctx, audit.PruneOptions{Before: before, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if dry.Prompts == 0 || !dry.DryRun {
			t.Fatalf("a dry run found nothing to prune: %+v", dry)
		}
		if _, err := store.Get(ctx, hb); err != nil {
			t.Fatalf("a dry run removed b: %v", err)
		}
		rep, err := store.Prune(ctx, audit.PruneOptions{Before: before})
		if err != nil {
			t.Fatal(err)
		}
		if rep != (audit.PruneReport{Prompts: dry.Prompts, Parts: dry.Parts, IDs: dry.IDs, Inputs: dry.Inputs, Kept: dry.Kept}) {
			t.Fatalf("pruned %+v, the dry run said %+v", rep, dry)
		}
		for _, gone := range []string{hb, hc} {
			if _, err := store.Get(ctx, gone); !errors.Is(err, audit.ErrNotFound) {
				t.Fatalf("%s: %v, want not found after the prune", gone[:12], err)
			}
		}
		// a is old, but d, which stays, embeds it: a stays, and d's chain
		// reads back whole.
		if chain := chainOf(t, store, hd); len(chain) != 3 || chain[1].Hash != ha {
			t.Fatalf("chain of d after the prune: %v", chain)
		}
		verifyClean(t, store)

		// by label, then by count
		if _, err := store.Prune(ctx, audit.PruneOptions{Label: "production", Keep: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Get(ctx, he); err != nil {
			t.Fatalf("the newest prompt is gone after --keep 1: %v", err)
		}
		if _, err := store.Get(ctx, hd); !errors.Is(err, audit.ErrNotFound) {
			t.Fatalf("d: %v, want not found after --keep 1", err)
		}
		verifyClean(t, store)
	})
}

func verifyClean(t *testing.T, store *audit.Store) {
	t.Helper()
	rep, err := store.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("verify after a prune: %v", rep.Problems)
	}
}

// openClocked opens a store whose clock reads *clock, from the first of
// January 2026: tests move it to record at the times they prune or verify
// since.
func openClocked(t *testing.T, target string) (store *audit.Store, clock *time.Time) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store = open(t, target)
	audit.SetClock(store, func() time.Time { return now })
	return store, &now
}

// TestVerifySince: VerifySince reads what was recorded since a time: a
// row changed before it is left to Verify, one changed after it is found.
func TestVerifySince(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		store, clock := openClocked(t, b.target)
		old := recordDelegation(t, store, delegate(t, "a January root", "january"))
		*clock = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		recent := recordDelegation(t, store, delegate(t, "a March root", "march"))
		db := b.db(t)
		if b.name == "sqlite" { // b.db reads only
			w, err := sql.Open("sqlite", "file:"+b.target)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			db = w
		}
		rebind := func(q string) string {
			if b.name == "postgres" {
				return strings.NewReplacer("?1", "$1", "?2", "$2").Replace(q)
			}
			return strings.NewReplacer("?1", "?", "?2", "?").Replace(q)
		}
		if _, err := db.Exec(rebind(`UPDATE prompts SET sha256 = ?1 WHERE hash = ?2`), audit.Hash("forged"), old); err != nil {
			t.Fatal(err)
		}
		february := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		rep, err := store.VerifySince(ctx, february)
		if err != nil || len(rep.Problems) != 0 || rep.Prompts == 0 {
			t.Fatalf("since February, with a January row changed: %v %+v", err, rep)
		}
		if rep, err := store.Verify(ctx); err != nil || len(rep.Problems) != 1 || rep.Problems[0].Hash != old {
			t.Fatalf("a whole verify misses the January row: %v %+v", err, rep.Problems)
		}
		if _, err := db.Exec(rebind(`UPDATE prompts SET sha256 = ?1 WHERE hash = ?2`), audit.Hash("forged"), recent); err != nil {
			t.Fatal(err)
		}
		rep, err = store.VerifySince(ctx, february)
		if err != nil || len(rep.Problems) != 1 || rep.Problems[0].Hash != recent {
			t.Fatalf("since February, with a March row changed: %v %+v", err, rep.Problems)
		}
	})
}
