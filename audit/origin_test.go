package audit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
)

// TestOrigin: a prompt recorded with its origin reads back with its
// label, commit, input address and budget; its input is stored once for
// every prompt that names it and read back as recorded. With a key the
// origin is signed: a label changed behind the store's back, or an
// input's bytes, fail verification. A prompt recorded without an input
// says so.
func TestOrigin(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		store := open(t, b.target, audit.WithKey(testKey))
		in := []byte(`{"parent":{"prompt":"# Root\n"},"delegation":{"task_summary":"t"}}`)
		o := audit.Origin{Label: "production", Commit: "5af1a2048bb755bf00af2262bb96118f8e97b2d2", Input: in, MaxTokens: 500, Tokens: "o200k_base"}
		first, err := store.RecordFrom(ctx, delegation(t), delegate(t, "# Root\n", "t"), o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.RecordFrom(ctx, delegation(t), delegate(t, "# Root\n", "u"), o); err != nil {
			t.Fatal(err)
		}
		plain, err := store.Record(ctx, delegation(t), delegate(t, "# Root\n", "v"))
		if err != nil {
			t.Fatal(err)
		}

		e, err := store.Get(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		if e.Label != o.Label || e.Commit != o.Commit || e.Input != audit.Hash(string(in)) || e.MaxTokens != 500 || e.Tokens != "o200k_base" {
			t.Errorf("entry: %+v", e)
		}
		got, err := store.Input(ctx, e.Input)
		if err != nil || string(got) != string(in) {
			t.Errorf("input: %q %v", got, err)
		}
		db := writable(t, b)
		if n := count(t, db, `SELECT count(*) FROM inputs`); n != 1 {
			t.Errorf("%d inputs stored for one input", n)
		}
		if rep, err := store.Verify(ctx); err != nil || len(rep.Problems) != 0 {
			t.Errorf("Verify: %+v %v", rep, err)
		}

		e, err = store.Get(ctx, plain)
		if err != nil || e.Label != "" || e.Input != "" {
			t.Fatalf("a prompt without origin: %+v %v", e, err)
		}
		if _, err := store.Input(ctx, e.Input); !errors.Is(err, audit.ErrNoInput) {
			t.Errorf("the input of a prompt recorded without one: %v", err)
		}

		rebind := func(q string) string {
			if b.name == "postgres" {
				return map[string]string{
					`UPDATE prompts SET label = 'staging' WHERE hash = ?`: `UPDATE prompts SET label = 'staging' WHERE hash = $1`,
					`UPDATE inputs SET data = ? WHERE hash = ?`:           `UPDATE inputs SET data = $1 WHERE hash = $2`,
				}[q]
			}
			return q
		}
		if _, err := db.Exec(rebind(`UPDATE prompts SET label = 'staging' WHERE hash = ?`), first); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Get(ctx, first); !errors.Is(err, audit.ErrIntegrity) {
			t.Errorf("a label changed behind the store: %v", err)
		}
		if _, err := db.Exec(rebind(`UPDATE inputs SET data = ? WHERE hash = ?`), []byte(`{"forged":true}`), audit.Hash(string(in))); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Input(ctx, audit.Hash(string(in))); !errors.Is(err, audit.ErrIntegrity) {
			t.Errorf("an input changed behind the store: %v", err)
		}
		rep, err := store.Verify(ctx)
		if err != nil || !hasProblem(rep, "inputs", audit.Hash(string(in))) {
			t.Errorf("Verify after an input changed: %+v %v", rep, err)
		}
	})
}

// hasProblem says whether a report names the row of table at hash.
func hasProblem(rep audit.Report, table, hash string) bool {
	for _, p := range rep.Problems {
		if p.Table == table && p.Hash == hash {
			return true
		}
	}
	return false
}
