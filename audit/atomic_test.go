package audit_test

import (
	"context"
	"testing"
)

// TestFailedWriteLeavesNothing: a transaction that fails at its last
// statement (the ids, refused here by the database) leaves none of its
// rows, and its record fails; once the database takes ids again, the same
// record stores the prompt and the parent it embeds.
func TestFailedWriteLeavesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		db := writable(t, b)
		refuse, allow := `ALTER TABLE ids ADD CONSTRAINT refused CHECK (false) NOT VALID`, `ALTER TABLE ids DROP CONSTRAINT refused`
		if b.name == "sqlite" {
			refuse, allow = `CREATE TRIGGER refused BEFORE INSERT ON ids BEGIN SELECT RAISE(ABORT, 'refused'); END`, `DROP TRIGGER refused`
		}
		if _, err := db.Exec(refuse); err != nil {
			t.Fatal(err)
		}
		res := delegate(t, "a parent no record stored before", "the task")
		if _, err := store.Record(context.Background(), delegation(t), res); err == nil {
			t.Fatal("a record whose ids the database refused succeeded")
		}
		for _, table := range []string{"prompts", "parts", "ids", "inputs"} {
			if n := count(t, db, `SELECT count(*) FROM `+table); n != 0 {
				t.Errorf("a failed record left %d rows in %s", n, table)
			}
		}
		if _, err := db.Exec(allow); err != nil {
			t.Fatal(err)
		}
		h, err := store.Record(context.Background(), delegation(t), res)
		if err != nil {
			t.Fatal(err)
		}
		if chain := chainOf(t, store, h); len(chain) != 2 || chain[0].Hash != h {
			t.Fatalf("after the failure, the chain of the record: %v", chain)
		}
	})
}
