package audit

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
	sqlite3 "modernc.org/sqlite/lib"
)

// busyTimeout is how long a writer waits for another (in this process or
// another) to commit before it gives up. Record's transactions last
// milliseconds, so only a long stall reaches it.
const busyTimeout = 30 * time.Second

type sqliteBackend struct{ path string }

// openSQLite opens the database file at path. Writers use WAL, so readers
// never wait for them, and BEGIN IMMEDIATE with a busy timeout, so that a
// writer waits for the write lock at the start of its transaction rather
// than failing with SQLITE_BUSY halfway through. A read-only store opens the
// file with mode=ro and never creates it.
func openSQLite(path string, readOnly bool) (*sql.DB, backend, string, error) {
	if path == "" {
		return nil, nil, "", &engine.Error{Kind: engine.KindUsage, Reason: "no audit database named", Hints: []string{"name a file, or a postgres:// URL"}}
	}
	dsn := "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path) +
		"?_pragma=busy_timeout(" + strconv.FormatInt(busyTimeout.Milliseconds(), 10) + ")"
	if readOnly {
		info, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, "", &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "no audit database at " + path, Err: ErrNoStore,
				Hints: []string{"record a render with --audit " + path + " first; reading never creates a database"}}
		case err != nil:
			return nil, nil, "", &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "cannot read the audit database: " + err.Error(), Err: err}
		case info.IsDir():
			return nil, nil, "", &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "is a folder, not an audit database", Err: ErrNoStore,
				Hints: []string{"name the database file inside it"}}
		}
		dsn += "&mode=ro"
	} else {
		dsn += "&_txlock=immediate"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, "", &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "cannot open the audit database: " + err.Error(), Err: err}
	}
	return db, sqliteBackend{path}, path, nil
}

func (sqliteBackend) rebind(q string) string { return q }
func (sqliteBackend) hashArg() string        { return "CAST(? AS TEXT)" }

// legacy refuses a database of the first format, which stored every level
// of a chain whole (tables prompts(hash, text, …), embeds, ids, and no
// schema_migrations): its addresses and layout differ, so it is left as it
// is rather than rewritten in place.
func (b sqliteBackend) legacy(ctx context.Context, q querier) error {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('schema_migrations', 'embeds')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		tables[name] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if tables["embeds"] && !tables["schema_migrations"] {
		return &engine.Error{Kind: engine.KindUsage, Path: b.path, Reason: "holds an audit database of the earlier format, which stored each level of a delegation chain whole; it was left unchanged",
			Hints: []string{
				"record into a new file: --audit with another path (the new format is linear in the prompt's size)",
				"the prompts in this file stay readable with sqlite3: SELECT text FROM prompts WHERE hash = '…'",
			}}
	}
	return nil
}

// migrate turns on WAL (kept in the file: every later connection uses it),
// then migrates in one BEGIN IMMEDIATE transaction (the DSN's _txlock): the
// first store to take the write lock migrates, the others wait for it and
// then find nothing left to do. A database of the earlier format is refused
// before anything is written to it.
func (b sqliteBackend) migrate(ctx context.Context, db *sql.DB) error {
	if err := b.legacy(ctx, db); err != nil {
		return err
	}
	if err := walMode(ctx, db); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := b.legacy(ctx, tx); err != nil {
		return err
	}
	return migrateTx(ctx, tx, b, b.haveMigrations, func(m migration) string { return m.sqlite })
}

// haveMigrations reports whether the file has a schema_migrations table.
func (sqliteBackend) haveMigrations(ctx context.Context, q querier) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	have := rows.Next()
	return have, rows.Err()
}

// walMode turns on WAL. Switching needs the database to itself, and SQLite
// answers SQLITE_BUSY at once, without waiting, while another connection
// uses it (another store opening the same new file, say), so this retries
// for as long as the busy timeout.
func walMode(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}

func (b sqliteBackend) check(ctx context.Context, db *sql.DB) (map[int]bool, error) {
	if err := b.legacy(ctx, db); err != nil {
		return nil, err
	}
	return checkMigrated(ctx, db, b.path, b.haveMigrations, "is not an audit database (it has no schema_migrations table)",
		"name the file that render --audit wrote")
}

// write inserts each record's prompts in address order, the parts of those
// that are new, the recorded prompt's metadata if it was known only as
// embedded, and its ids. SQLite has one writer at a time; the transaction
// began IMMEDIATE, so it holds the write lock from the start.
// SQLite's busy timeout and the store's context bound the transaction.
func (b sqliteBackend) write(ctx context.Context, db *sql.DB, recs []*record, _ time.Duration) error {
	return inTx(ctx, db, func(tx *sql.Tx) error {
		for _, rec := range recs {
			if err := b.writeOne(ctx, tx, rec); err != nil {
				return err
			}
		}
		return nil
	})
}

// lockForPrune needs nothing: the transaction began IMMEDIATE and holds
// the one write lock.
func (sqliteBackend) lockForPrune(context.Context, *sql.Tx) error { return nil }

// keptTable: a temporary table lasts as long as its connection, and may
// be left from an earlier prune on it.
func (sqliteBackend) keptTable() []string {
	return []string{`CREATE TEMPORARY TABLE IF NOT EXISTS prune_kept(hash TEXT PRIMARY KEY) WITHOUT ROWID`, `DELETE FROM prune_kept`}
}

func (sqliteBackend) writeOne(ctx context.Context, tx *sql.Tx, rec *record) error {
	if err := writeInput(ctx, tx, sqliteBackend{}.rebind, rec); err != nil {
		return err
	}
	insPrompt, err := tx.PrepareContext(ctx, `INSERT INTO prompts(hash, sha256, size, variant, library, library_short, variant_hash, version, recorded, budget, signature,
		label, git_commit, input, max_tokens, token_encoding)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING`)
	if err != nil {
		return err
	}
	defer insPrompt.Close()
	insPart, err := tx.PrepareContext(ctx, `INSERT INTO parts(hash, seq, bytes, child, region) VALUES(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer insPart.Close()
	topNew := false
	for i, n := range rec.nodes {
		m := rec.meta(n)
		o := m.origin
		r, err := insPrompt.ExecContext(ctx, n.hash, m.sha256, n.size, m.variant, m.prov.Library, m.prov.Short, m.prov.Variant, m.prov.Version, rec.when, m.budget, rec.sigs[i],
			o.label, o.commit, o.input, o.maxTokens, o.tokens)
		if err != nil {
			return err
		}
		if k, err := r.RowsAffected(); err != nil || k == 0 {
			continue // stored before, with its parts
		}
		topNew = topNew || n == rec.top
		for i, seg := range n.segs {
			child, region := n.kid(i)
			if _, err := insPart.ExecContext(ctx, n.hash, i, []byte(seg), child, region); err != nil {
				return err
			}
		}
	}
	if !topNew {
		if err := rec.updateTopRow(ctx, tx, sqliteBackend{}.rebind); err != nil {
			return err
		}
	}
	for _, id := range rec.ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO ids(name, value, hash, signature) VALUES(?, ?, ?, ?) ON CONFLICT DO NOTHING`, id[0], id[1], rec.top.hash, id[2]); err != nil {
			return err
		}
	}
	return nil
}

// reader reads outside a transaction: under WAL each query sees a
// consistent snapshot, and an IMMEDIATE transaction would take the write
// lock.
func (sqliteBackend) reader(ctx context.Context, db *sql.DB) (querier, func(), error) {
	return db, func() {}, nil
}
