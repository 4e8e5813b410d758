package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/tokens"
)

// crowded renders the space variant's crowded example, fitted to maxTokens
// o200k_base tokens, or whole when maxTokens is 0.
func crowded(t testing.TB, maxTokens int) (*engine.Variant, *engine.Result) {
	t.Helper()
	l := lib(t)
	v, err := l.Variant("space")
	if err != nil {
		t.Fatal(err)
	}
	in, err := v.Example("crowded")
	if err != nil {
		t.Fatal(err)
	}
	var opts []engine.RenderOption
	if maxTokens > 0 {
		counter, err := tokens.New("o200k_base")
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, engine.FitTokens(maxTokens, counter))
	}
	res, err := l.Render(context.Background(), "space", in, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if maxTokens > 0 && (res.Budget == nil || len(res.Budget.Cuts) == 0) {
		t.Fatalf("the crowded example fitted to %d tokens cut nothing: %+v", maxTokens, res.Budget)
	}
	return v, res
}

// sameBudget reports whether two budget reports say the same, as JSON says
// them (what the store keeps).
func sameBudget(t *testing.T, got, want *engine.BudgetReport) bool {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	return string(g) == string(w)
}

func storedBudget(t *testing.T, db *sql.DB, b backend, hash string) string {
	t.Helper()
	q := `SELECT budget FROM prompts WHERE hash = ?`
	if b.name == "postgres" {
		q = `SELECT budget FROM prompts WHERE hash = $1`
	}
	var s string
	if err := db.QueryRow(q, hash).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// TestBudget: a render fitted to a budget is recorded with its budget
// report, which Get, Chain and Links give back as it was; a render without
// a budget has none; a prompt first known as embedded gains the budget of
// its own record, and the prompt embedding it keeps none.
func TestBudget(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		db := b.db(t)
		space, fitted := crowded(t, 1000)
		_, whole := crowded(t, 0)
		if whole.Budget != nil || whole.Text == fitted.Text {
			t.Fatal("the crowded example rendered whole should differ from it fitted, and have no budget")
		}

		hash, err := store.Record(context.Background(), space, fitted)
		if err != nil {
			t.Fatal(err)
		}
		e, err := store.Get(context.Background(), hash)
		if err != nil {
			t.Fatal(err)
		}
		if e.Text != fitted.Text || e.Variant != "space" {
			t.Fatalf("Get: the text or variant differs from what was recorded (%q)", e.Variant)
		}
		if e.Budget == nil || !sameBudget(t, e.Budget, fitted.Budget) {
			t.Fatalf("Get: budget %+v, want %+v", e.Budget, fitted.Budget)
		}
		if e.Budget.MaxTokens != 1000 || e.Budget.Tokens > 1000 || e.Budget.FullTokens <= e.Budget.Tokens || len(e.Budget.Cuts) != len(fitted.Budget.Cuts) {
			t.Errorf("Get: budget %+v", e.Budget)
		}
		for name, read := range map[string]func(context.Context, string) ([]audit.Entry, error){"Chain": store.Chain, "Links": store.Links} {
			l, err := read(context.Background(), hash)
			if err != nil || len(l) != 1 || !sameBudget(t, l[0].Budget, fitted.Budget) {
				t.Errorf("%s: %d entries, %v", name, len(l), err)
			}
		}
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var asJSON struct {
			Budget *struct {
				MaxTokens int `json:"max_tokens"`
				Cuts      []struct {
					Unit, Kind  string
					TokensSaved int `json:"tokens_saved"`
				}
			}
		}
		if err := json.Unmarshal(data, &asJSON); err != nil || asJSON.Budget == nil || asJSON.Budget.MaxTokens != 1000 ||
			len(asJSON.Budget.Cuts) == 0 || asJSON.Budget.Cuts[0].Unit == "" || asJSON.Budget.Cuts[0].TokensSaved <= 0 {
			t.Errorf("the entry as JSON: %v %.400s", err, data)
		}

		// Unbudgeted: no budget, in the row or the entry.
		wholeHash, err := store.Record(context.Background(), space, whole)
		if err != nil {
			t.Fatal(err)
		}
		e, err = store.Get(context.Background(), wholeHash)
		if err != nil || e.Text != whole.Text || e.Budget != nil {
			t.Fatalf("Get of the whole render: %v, budget %+v", err, e.Budget)
		}
		if data, _ := json.Marshal(e); strings.Contains(string(data), `"budget"`) {
			t.Errorf("an entry without a budget says one in JSON: %.300s", data)
		}
		if s := storedBudget(t, db, b, wholeHash); s != "" {
			t.Errorf("the whole render's row holds budget %q", s)
		}

		// Recording either again changes neither.
		if _, err := store.Record(context.Background(), space, fitted); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Record(context.Background(), space, whole); err != nil {
			t.Fatal(err)
		}
		if e, _ := store.Get(context.Background(), hash); !sameBudget(t, e.Budget, fitted.Budget) {
			t.Errorf("a second record changed the budget: %+v", e.Budget)
		}
		if e, _ := store.Get(context.Background(), wholeHash); e.Budget != nil {
			t.Errorf("a second record gave the whole render a budget: %+v", e.Budget)
		}

		// A fitted prompt first recorded as the parent a delegation embeds:
		// known only as embedded, it has no budget; recorded itself later,
		// it gains its own, and the delegation still has none.
		_, small := crowded(t, 600)
		if small.Text == fitted.Text {
			t.Fatal("fitted to 600 and 1000 tokens, the crowded example is the same")
		}
		dlg := delegate(t, small.Text, "t")
		dlgHash := recordDelegation(t, store, dlg)
		links, err := store.Chain(context.Background(), dlgHash)
		if err != nil || len(links) != 2 || links[1].Text != small.Text {
			t.Fatalf("the delegation's chain: %d links, %v", len(links), err)
		}
		if links[0].Budget != nil || links[1].Budget != nil || links[1].Variant != "" {
			t.Fatalf("before its own record, the parent has variant %q and budget %+v", links[1].Variant, links[1].Budget)
		}
		smallHash, err := store.Record(context.Background(), space, small)
		if err != nil || smallHash != links[1].Hash {
			t.Fatalf("record the parent itself: %q %v, want %s", smallHash, err, links[1].Hash)
		}
		links, err = store.Links(context.Background(), dlgHash)
		if err != nil || len(links) != 2 {
			t.Fatalf("Links: %d %v", len(links), err)
		}
		if links[1].Variant != "space" || !sameBudget(t, links[1].Budget, small.Budget) || links[1].Budget.MaxTokens != 600 {
			t.Errorf("after its own record, the parent has variant %q and budget %+v", links[1].Variant, links[1].Budget)
		}
		if links[0].Budget != nil {
			t.Errorf("the delegation gained a budget: %+v", links[0].Budget)
		}
	})
}

// writable opens a test's database itself, for writing.
func writable(t *testing.T, b backend) *sql.DB {
	if b.name == "sqlite" {
		return sqliteDB(t, b.target)
	}
	return b.db(t)
}

// version1 makes b a store of schema version 1 holding res: recorded, then
// stripped of what versions 2 and 3 added, which leaves the rows and the
// schema version 1 wrote. It returns res's address.
func version1(t *testing.T, b backend, res *engine.Result) string {
	t.Helper()
	w := open(t, b.target)
	hash := recordDelegation(t, w, res)
	w.Close()
	db := writable(t, b)
	for _, stmt := range []string{`ALTER TABLE prompts DROP COLUMN budget`, `ALTER TABLE prompts DROP COLUMN signature`,
		`ALTER TABLE ids DROP COLUMN signature`, `ALTER TABLE prompts DROP COLUMN label`, `ALTER TABLE prompts DROP COLUMN git_commit`,
		`ALTER TABLE prompts DROP COLUMN input`, `ALTER TABLE prompts DROP COLUMN max_tokens`, `ALTER TABLE prompts DROP COLUMN token_encoding`,
		`DROP TABLE inputs`, `DELETE FROM schema_migrations WHERE version >= 2`} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if hasBudgetColumn(t, db, b) || count(t, db, `SELECT count(*) FROM schema_migrations`) != 1 {
		t.Fatal("the store is not at version 1")
	}
	return hash
}

func hasBudgetColumn(t *testing.T, db *sql.DB, b backend) bool {
	t.Helper()
	q := `SELECT count(*) FROM pragma_table_info('prompts') WHERE name = 'budget'`
	if b.name == "postgres" {
		q = `SELECT count(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'prompts' AND column_name = 'budget'`
	}
	return count(t, db, q) == 1
}

// TestVersion1Migrated: a store of schema version 1, from before budgets
// were kept, is read as it is by a read-only store, which leaves it at
// version 1, and is brought to the current version by the first store that
// opens it for recording (several at once here); its prompts read back
// unchanged, without a budget, and a budgeted render records its budget.
func TestVersion1Migrated(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		prompts, last := chain(t, "# Root\n", 2, "t")
		hash := version1(t, b, last)
		db := writable(t, b)

		// Read-only: reads it, budgets as none, and leaves it at version 1.
		r, err := audit.OpenReadOnly(context.Background(), b.target)
		if err != nil {
			t.Fatalf("read-only open of a version-1 store: %v", err)
		}
		links, err := r.Chain(context.Background(), hash)
		if err != nil || len(links) != 3 {
			t.Fatalf("read-only chain: %d links, %v", len(links), err)
		}
		for i, l := range links {
			if l.Text != prompts[2-i] || l.Budget != nil {
				t.Errorf("read-only, link %d: text differs or budget %+v", i, l.Budget)
			}
		}
		if _, err := r.Record(context.Background(), delegation(t), last); err == nil {
			t.Error("a read-only store recorded")
		}
		r.Close()
		if hasBudgetColumn(t, db, b) || count(t, db, `SELECT count(*) FROM schema_migrations`) != 1 {
			t.Error("a read-only open changed the schema")
		}

		// Stores opening it at once for recording: one migrates.
		openAtOnce(t, b.target, 4)
		if !hasBudgetColumn(t, db, b) || count(t, db, `SELECT count(*) FROM schema_migrations WHERE version = 2`) != 1 ||
			count(t, db, `SELECT count(*) FROM schema_migrations`) != 4 {
			t.Fatal("the store was not migrated to versions 2, 3 and 4, once each")
		}

		store := open(t, b.target)
		links, err = store.Chain(context.Background(), hash)
		if err != nil || len(links) != 3 {
			t.Fatalf("chain after the migration: %d links, %v", len(links), err)
		}
		for i, l := range links {
			if l.Text != prompts[2-i] || l.Budget != nil {
				t.Errorf("after the migration, link %d: text differs or budget %+v", i, l.Budget)
			}
		}
		if links[0].Provenance != last.Provenance || links[0].IDs["delegation_id"] != last.IDs["delegation_id"] {
			t.Errorf("after the migration, the recorded prompt: %+v", links[0])
		}
		space, fitted := crowded(t, 1000)
		h, err := store.Record(context.Background(), space, fitted)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := store.Get(context.Background(), h); err != nil || e.Text != fitted.Text || !sameBudget(t, e.Budget, fitted.Budget) {
			t.Errorf("a budgeted record after the migration: %v, budget %+v", err, e.Budget)
		}
		r, err = audit.OpenReadOnly(context.Background(), b.target)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if e, err := r.Get(context.Background(), h); err != nil || !sameBudget(t, e.Budget, fitted.Budget) {
			t.Errorf("read-only, after the migration: %v, budget %+v", err, e.Budget)
		}
	})
}

// TestVersion1RowsOnlyUser: a PostgreSQL user that may write rows but not
// alter tables cannot upgrade a version-1 store, and is told what to do;
// once the tables' owner has opened it, that user records budgets.
func TestVersion1RowsOnlyUser(t *testing.T) {
	t.Parallel()
	b := postgresBackend(t)
	last := delegate(t, "# Root\n", "t")
	version1(t, b, last)
	writer := rowsOnlyUser(t, b)
	_, err := audit.Open(context.Background(), writer)
	var ae *engine.Error
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "cannot upgrade the audit store to schema version 2") ||
		len(ae.Hints) != 2 || !strings.Contains(ae.Hints[0], "owner") || ae.Path == "" {
		t.Fatalf("got %v (%+v)", err, ae)
	}
	if r, err := audit.OpenReadOnly(context.Background(), writer); err != nil {
		t.Errorf("the rows-only user reading the version-1 store: %v", err)
	} else {
		r.Close()
	}
	open(t, b.target).Close() // the owner upgrades it
	store := open(t, writer)
	space, fitted := crowded(t, 1000)
	h, err := store.Record(context.Background(), space, fitted)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := store.Get(context.Background(), h); err != nil || !sameBudget(t, e.Budget, fitted.Budget) {
		t.Errorf("the rows-only user's budgeted record: %v, budget %+v", err, e.Budget)
	}
}
