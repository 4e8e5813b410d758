package audit_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
)

// TestStore records only the last subagent prompt of a three-level chain
// and reads everything back: by delegation_id, by address and SHA-256 and
// their prefixes, the text, the chain, provenance; then records again, and
// records a middle level of its own.
func TestStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		db := b.db(t)
		prompts, last := chain(t, "# Root\n\nYou own the work.\n", 3, "t")
		v := delegation(t)

		hash, err := store.Record(context.Background(), v, last)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{last.IDs["delegation_id"], hash, hash[:10], strings.ToUpper(hash[:10]), audit.Hash(last.Text), audit.Hash(last.Text)[:12]} {
			if got, err := store.Resolve(context.Background(), key); err != nil || got != hash {
				t.Errorf("Resolve(%q) = %q, %v; want %s", key, got, err, hash)
			}
		}

		e, err := store.Get(context.Background(), hash)
		if err != nil {
			t.Fatal(err)
		}
		if e.Text != last.Text || e.SHA256 != audit.Hash(last.Text) || e.Size != int64(len(last.Text)) {
			t.Errorf("Get: the text or its hash differs from what was recorded")
		}
		if e.Variant != "delegation" || e.IDs["delegation_id"] != last.IDs["delegation_id"] {
			t.Errorf("Get: metadata %v", e)
		}
		if e.Provenance != last.Provenance || e.Provenance.Short == "" {
			t.Errorf("Get: provenance %+v, want %+v", e.Provenance, last.Provenance)
		}

		links := chainOf(t, store, hash)
		if len(links) != 4 {
			t.Fatalf("chain of %d, want 4", len(links))
		}
		for i, l := range links {
			if l.Text != prompts[3-i] {
				t.Errorf("link %d differs from the prompt of that level", i)
			}
			if l.SHA256 != audit.Hash(l.Text) {
				t.Errorf("link %d: sha256 %s", i, l.SHA256)
			}
		}
		if links[3].Variant != "" || links[3].Provenance != (engine.Provenance{}) || links[0].Provenance != last.Provenance {
			t.Errorf("only the recorded prompt has a variant and provenance: %+v / %+v", links[0], links[3])
		}
		bare, err := store.Links(context.Background(), hash)
		if err != nil || len(bare) != 4 {
			t.Fatalf("Links: %d %v", len(bare), err)
		}
		for i, l := range bare {
			if l.Hash != links[i].Hash || l.Text != "" || l.Size != int64(len(prompts[3-i])) {
				t.Errorf("Links %d: %s size %d", i, l.Hash, l.Size)
			}
		}
		// Each level is stored as its own bytes: the parts add up to the
		// last prompt's length exactly once.
		if n := count(t, db, `SELECT sum(length(bytes)) FROM parts`); n != len(last.Text) {
			t.Errorf("parts hold %d bytes, want %d (the length of the last prompt)", n, len(last.Text))
		}

		// Recording again stores nothing new.
		before := count(t, db, `SELECT count(*) FROM prompts`) + count(t, db, `SELECT count(*) FROM parts`)
		if again, err := store.Record(context.Background(), v, last); err != nil || again != hash {
			t.Fatalf("second record: %q %v", again, err)
		}
		if after := count(t, db, `SELECT count(*) FROM prompts`) + count(t, db, `SELECT count(*) FROM parts`); after != before || before != 4+7 {
			t.Errorf("rows: %d before the second record, %d after; want 11", before, after)
		}

		// A middle level recorded itself gains its variant, ids and
		// provenance; its bytes are not stored again.
		mid := delegate(t, prompts[1], "t")
		if mid.Text != prompts[2] {
			t.Fatal("rendering is not deterministic")
		}
		midHash, err := store.Record(context.Background(), v, mid)
		if err != nil || midHash != links[1].Hash {
			t.Fatalf("record the middle level: %q %v, want %s", midHash, err, links[1].Hash)
		}
		if n := count(t, db, `SELECT count(*) FROM prompts`) + count(t, db, `SELECT count(*) FROM parts`); n != before {
			t.Errorf("recording an embedded prompt added rows: %d, want %d", n, before)
		}
		links, _ = store.Links(context.Background(), hash)
		if links[1].Variant != "delegation" || links[1].IDs["delegation_id"] != mid.IDs["delegation_id"] || links[1].Provenance != mid.Provenance {
			t.Errorf("the middle level after its own record: %+v", links[1])
		}
		if got, err := store.Resolve(context.Background(), mid.IDs["delegation_id"]); err != nil || got != midHash {
			t.Errorf("resolve the middle level's delegation_id: %q %v", got, err)
		}
	})
}

// TestResolveErrors: unknown keys, ambiguous prefixes, and prefixes that
// would be patterns under LIKE.
func TestResolveErrors(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		v := delegation(t)
		// 17 prompts: two of their addresses share a first hex digit.
		byFirst := map[byte][]string{}
		for i := range 17 {
			h, err := store.Record(context.Background(), v, delegate(t, "# Root\n", fmt.Sprint("task ", i)))
			if err != nil {
				t.Fatal(err)
			}
			byFirst[h[0]] = append(byFirst[h[0]], h)
		}
		var shared string
		for c, hs := range byFirst {
			if len(hs) > 1 {
				shared = string(c)
			}
		}
		_, err := audit.ResolveAnyPrefix(context.Background(), store, shared)
		if !errors.Is(err, audit.ErrAmbiguous) || !strings.Contains(err.Error(), shared) {
			t.Errorf("ambiguous prefix %q: %v", shared, err)
		}
		for _, key := range []string{"dlg-nothing", "%", "_", shared + "%", shared + "_", "%" + shared, strings.Repeat("0", 64), "g",
			"a\x00b", "\xff\xfe", "\x00", strings.Repeat("a", 100) + "\x00"} {
			_, err := store.Resolve(context.Background(), key)
			if !errors.Is(err, audit.ErrNotFound) || !strings.Contains(err.Error(), key) {
				t.Errorf("Resolve(%q): %v, want not found naming the key", key, err)
			}
		}
		// A prefix shorter than audit.MinPrefix digits names no prompt,
		// saying so, however many it would match; the full hash and a
		// prefix of MinPrefix digits do.
		for _, hs := range byFirst {
			h := hs[0]
			for _, key := range []string{h[:1], h[:audit.MinPrefix-1]} {
				_, err := store.Resolve(context.Background(), key)
				if !errors.Is(err, audit.ErrNotFound) || !strings.Contains(err.Error(), "8 hex digits") {
					t.Errorf("Resolve(%q): %v, want not found saying a prefix has 8 digits", key, err)
				}
			}
			for _, key := range []string{h, h[:audit.MinPrefix], strings.ToUpper(h[:audit.MinPrefix])} {
				if got, err := store.Resolve(context.Background(), key); err != nil || got != h {
					t.Errorf("Resolve(%q) = %q, %v; want %s", key, got, err, h)
				}
			}
			break
		}
		if _, err := store.Get(context.Background(), strings.Repeat("0", 64)); !errors.Is(err, audit.ErrNotFound) {
			t.Errorf("Get of an unknown hash: %v", err)
		}
		if _, err := store.Chain(context.Background(), "nothing"); !errors.Is(err, audit.ErrNotFound) {
			t.Errorf("Chain of an unknown hash: %v", err)
		}
	})
}

// TestRegionsAtEveryDepth records a parent whose region nests levels of
// bare markers and checks that each stored level is exactly what
// verbatim.Extract gives at that depth, and that no level's bytes are
// stored twice.
func TestRegionsAtEveryDepth(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		res := delegate(t, nestedMarkers(50), "t")
		hash := recordDelegation(t, store, res)
		links := chainOf(t, store, hash)
		if len(links) != 52 {
			t.Fatalf("%d links, want the prompt, its parent and 50 levels", len(links))
		}
		m := verbatim.Markers{Start: "<!-- PARENT PROMPT START -->", End: "<!-- PARENT PROMPT END -->"}
		for depth := 1; depth < len(links); depth++ {
			want, err := m.Extract(res.Text, depth)
			if err != nil {
				t.Fatal(err)
			}
			if links[depth].Text != want {
				t.Fatalf("level %d differs from Extract at that depth", depth)
			}
		}
		if links[51].Text != "the innermost prompt" {
			t.Errorf("root: %q", links[51].Text)
		}
		if n := count(t, b.db(t), `SELECT sum(length(bytes)) FROM parts`); n != len(res.Text) {
			t.Errorf("parts hold %d bytes, want %d", n, len(res.Text))
		}
	})
}

// TestParentStoredOnce: many delegations of one parent store it once.
func TestParentStoredOnce(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		prompts, _ := chain(t, "# Root\n", 2, "shared")
		v := delegation(t)
		for i := range 5 {
			if _, err := store.Record(context.Background(), v, delegate(t, prompts[2], fmt.Sprint("child ", i))); err != nil {
				t.Fatal(err)
			}
		}
		db := b.db(t)
		if n := count(t, db, `SELECT count(*) FROM prompts`); n != 3+5 {
			t.Errorf("%d prompts stored, want the root, two shared levels and five children", n)
		}
		shared := len(prompts[2])
		own := count(t, db, `SELECT sum(length(bytes)) FROM parts`) - shared
		if own <= 0 || own >= 5*shared {
			t.Errorf("children hold %d bytes of their own beside a %d-byte shared parent", own, shared)
		}
	})
}

// TestReadOnly: reading never creates or changes a database.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	t.Run("missing sqlite file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.db")
		_, err := audit.OpenReadOnly(context.Background(), path)
		if !errors.Is(err, audit.ErrNoStore) || !strings.Contains(err.Error(), "no audit database at "+path) {
			t.Fatalf("got %v", err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
			t.Errorf("opening read-only created %v", entries)
		}
	})
	t.Run("empty postgres schema", func(t *testing.T) {
		b := postgresBackend(t)
		_, err := audit.OpenReadOnly(context.Background(), b.target)
		if !errors.Is(err, audit.ErrNoStore) {
			t.Fatalf("got %v", err)
		}
		if n := count(t, b.db(t), `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`); n != 0 {
			t.Errorf("opening read-only created %d tables", n)
		}
	})
	eachBackend(t, func(t *testing.T, b backend) {
		w := open(t, b.target)
		res := delegate(t, "# Root\n", "t")
		hash := recordDelegation(t, w, res)
		w.Close()
		r, err := audit.OpenReadOnly(context.Background(), b.target)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if e, err := r.Get(context.Background(), hash); err != nil || e.Text != res.Text {
			t.Fatalf("read back: %v", err)
		}
		if _, err := r.Record(context.Background(), delegation(t), delegate(t, "# Other\n", "t")); err == nil {
			t.Error("a read-only store recorded a prompt")
		}
	})
}

func TestOpenErrorNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "a.db")
	_, err := audit.Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v", err)
	}
}

func TestOpenErrorHidesThePassword(t *testing.T) {
	t.Parallel()
	_, err := audit.Open(context.Background(), "postgres://user:s3cret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("got %v", err)
	}
}

// TestEarlierFormatRefused: a database of the first format, which stored
// every level whole, is refused with a hint and left byte for byte as it was.
func TestEarlierFormatRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.db")
	db := sqliteDB(t, path)
	for _, stmt := range []string{
		`CREATE TABLE prompts (hash TEXT PRIMARY KEY, text BLOB NOT NULL, variant TEXT NOT NULL DEFAULT '', ids TEXT NOT NULL DEFAULT '{}', recorded TEXT NOT NULL)`,
		`CREATE TABLE embeds (child TEXT NOT NULL, parent TEXT NOT NULL, region TEXT NOT NULL, PRIMARY KEY (child, region))`,
		`CREATE TABLE ids (name TEXT NOT NULL, value TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (name, value, hash))`,
		`INSERT INTO prompts VALUES ('ab', 'old prompt', 'delegation', '{}', '2025-01-01T00:00:00Z')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before, _ := os.ReadFile(path)
	for _, openFn := range []func(context.Context, string, ...audit.Option) (*audit.Store, error){audit.Open, audit.OpenReadOnly} {
		_, err := openFn(context.Background(), path)
		var ae *engine.Error
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "earlier format") || !strings.Contains(err.Error(), path) || len(ae.Hints) == 0 {
			t.Fatalf("got %v", err)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the earlier database was changed")
	}
}

// TestMigrations: stores opening a new database at once all succeed, and
// the schema's version is recorded once.
func TestMigrations(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		openAtOnce(t, b.target, 6)
		db := b.db(t)
		if n := count(t, db, `SELECT count(*) FROM schema_migrations WHERE version = 1`); n != 1 {
			t.Errorf("version 1 recorded %d times", n)
		}
		for _, v := range []int{2, 3, 4} {
			if n := count(t, db, fmt.Sprint(`SELECT count(*) FROM schema_migrations WHERE version = `, v)); n != 1 {
				t.Errorf("version %d recorded %d times", v, n)
			}
		}
		s := open(t, b.target) // opening again applies nothing
		s.Close()
		if n := count(t, db, `SELECT count(*) FROM schema_migrations`); n != 4 {
			t.Errorf("%d migrations recorded, want versions 1 to 4", n)
		}
	})
}

// TestConcurrentRecords: stores on one database, each recording from its
// own goroutines, every one of the same chains, all succeed and store each
// prompt once.
func TestConcurrentRecords(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		v := delegation(t)
		var results []*engine.Result
		for i := range 4 {
			_, last := chain(t, "# Root\n", 3, fmt.Sprint("task ", i))
			results = append(results, last)
		}
		stores := []*audit.Store{open(t, b.target), open(t, b.target), open(t, b.target)}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		for _, s := range stores {
			for range 2 {
				wg.Go(func() {
					for _, res := range results {
						if _, err := s.Record(context.Background(), v, res); err != nil {
							mu.Lock()
							errs = append(errs, err)
							mu.Unlock()
						}
					}
				})
			}
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		// One root, four first levels (the task differs), and so on.
		db := b.db(t)
		if n := count(t, db, `SELECT count(*) FROM prompts`); n != 1+4*3 {
			t.Errorf("%d prompts, want 13", n)
		}
		for _, res := range results {
			h, err := stores[0].Resolve(context.Background(), res.IDs["delegation_id"])
			if err != nil {
				t.Fatal(err)
			}
			if e, err := stores[2].Get(context.Background(), h); err != nil || e.Text != res.Text {
				t.Errorf("read back %s: %v", h, err)
			}
		}
	})
}

func TestChainOrder(t *testing.T) {
	t.Parallel()
	// Links go from the subagent to the root; the root embeds nothing.
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		prompts, last := chain(t, "root\n", 5, "t")
		h := recordDelegation(t, store, last)
		links := chainOf(t, store, h)
		var texts []string
		for _, l := range links {
			texts = append(texts, l.Text)
		}
		slices.Reverse(texts)
		if !slices.Equal(texts, prompts) {
			t.Error("the chain is not the prompts from the last subagent to the root")
		}
	})
}

// TestRowsOnlyUser: once a store's tables exist, a PostgreSQL user that may
// only read and write rows (no CREATE) can open it and record.
func TestRowsOnlyUser(t *testing.T) {
	t.Parallel()
	b := postgresBackend(t)
	open(t, b.target).Close() // creates the tables
	store := open(t, rowsOnlyUser(t, b))
	recordDelegation(t, store, delegate(t, "# Root\n", "t"))
}

// rowsOnlyUser returns the URL of b as a new role that may read and write
// the rows of the tables b has, and neither create nor alter tables.
func rowsOnlyUser(t *testing.T, b backend) string {
	t.Helper()
	admin := b.db(t)
	role := "audit_writer_" + strings.TrimPrefix(schemaOf(t, b.target), "audit_test_")
	if _, err := admin.Exec(`CREATE ROLE ` + role + ` LOGIN`); err != nil {
		t.Skipf("cannot create a role to test with: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP OWNED BY ` + role)
		admin.Exec(`DROP ROLE ` + role)
	})
	schema := schemaOf(t, b.target)
	for _, grant := range []string{
		`GRANT USAGE ON SCHEMA ` + schema + ` TO ` + role,
		`GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA ` + schema + ` TO ` + role,
	} {
		if _, err := admin.Exec(grant); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := url.Parse(b.target)
	u.User = url.User(role)
	return u.String()
}

func schemaOf(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

// TestEveryExample records the rendered example of every variant and reads
// each back byte for byte; for delegations, each level of the chain is what
// verbatim.Extract gives at that depth (CRLF parents, fences, nesting).
func TestEveryExample(t *testing.T) {
	t.Parallel()
	store := open(t, filepath.Join(t.TempDir(), "audit.db"))
	l := lib(t)
	for _, name := range l.Names() {
		v, err := l.Variant(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range v.Examples() {
			in, err := v.Example(ex)
			if err != nil {
				t.Fatal(err)
			}
			res, err := l.Render(context.Background(), name, in)
			if err != nil {
				continue // an example of a failure; nothing to record
			}
			hash, err := store.Record(context.Background(), v, res)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, ex, err)
			}
			links := chainOf(t, store, hash)
			if links[0].Text != res.Text {
				t.Errorf("%s/%s: the stored prompt differs from the rendered one", name, ex)
			}
			for _, r := range res.Regions {
				vb, _ := v.Verbatim(r.Name)
				for depth := 1; depth < len(links); depth++ {
					want, err := verbatim.Of(vb).Extract(res.Text, depth)
					if err != nil || links[depth].Text != want {
						t.Errorf("%s/%s: level %d differs from Extract (%v)", name, ex, depth, err)
					}
				}
			}
		}
	}
}

// Open does its work under the caller's context: cancelled, it opens
// nothing and says why.
func TestOpenTakesTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := audit.Open(ctx, filepath.Join(t.TempDir(), "audit.db"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
}
