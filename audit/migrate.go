package audit

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// A migration is one version of the schema, in each database's dialect.
// Versions are applied in order, each once, inside the transaction that
// records it in schema_migrations.
type migration struct {
	version     int
	description string
	sqlite      string
	postgres    string
	// readsWithout says that a store lacking this version can still be
	// read, what it adds reading as empty: a read-only store, which may
	// not migrate, opens such a store rather than refusing it.
	readsWithout bool
}

// migrationFiles holds each version's DDL as SQL, which reads and diffs
// better than Go strings: migrations/<version>.<dialect>.sql, dialect
// sqlite or postgres.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations lists every version of the schema, with its DDL from
// migrationFiles. Append; never edit one that has been released.
func migrations() []migration {
	all := migrationSteps()
	for i := range all {
		all[i].sqlite = migrationSQL(all[i].version, "sqlite")
		all[i].postgres = migrationSQL(all[i].version, "postgres")
	}
	return all
}

// migrationSteps is the table of versions, what each adds and whether a
// store lacking it can be read; their DDL is in migrationFiles.
func migrationSteps() []migration {
	return []migration{{
		version:     1,
		description: "linear prompt store: prompts, parts (own bytes and references), ids",
	}, {
		version:     budgetVersion,
		description: "budget: how a recorded prompt was fitted to a number of tokens",
		// The JSON of the render's engine.BudgetReport, on the prompt
		// recorded itself; '' when the render had no budget, for a prompt
		// known only as embedded, and for one recorded before this version.
		readsWithout: true,
	}, {
		version:     signatureVersion,
		description: "signatures: the HMAC-SHA256 of each row of prompts and ids, by a store with a key",
		// Hex, of the row's canonical encoding (sign.go); '' for a row
		// written without a key, and for every row written before this
		// version, which a store with a key therefore refuses.
		readsWithout: true,
	}, {
		version:     originVersion,
		description: "origin: the label and commit a prompt was served from, and the input it was rendered from (origin.go)",
		// On the prompt recorded itself: the label and git commit of its
		// library (render serve --repo), and with --audit-inputs the
		// address of its input in inputs and the budget it was rendered
		// under; '' and 0 otherwise, and for prompts recorded before.
		readsWithout: true,
	}}
}

// migrationSQL is the DDL of version in dialect. Every version has a file
// in each dialect (TestMigrationFiles), so a missing one is a bug of the
// build, not of any store: it panics.
func migrationSQL(version int, dialect string) string {
	name := fmt.Sprintf("migrations/%d.%s.sql", version, dialect)
	b, err := fs.ReadFile(migrationFiles, name)
	if err != nil {
		panic("audit: " + name + " is not embedded: " + err.Error())
	}
	return string(b)
}

// originVersion is the version that adds the origin columns of prompts
// and the inputs table.
const originVersion = 4

// budgetVersion is the version that adds prompts.budget.
const budgetVersion = 2

// signatureVersion is the version that adds prompts.signature and
// ids.signature.
const signatureVersion = 3

const createMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version     INTEGER PRIMARY KEY,
	description TEXT NOT NULL,
	applied     TEXT NOT NULL
)`

// applyMigrations runs, inside tx, every migration not yet recorded in
// schema_migrations. The caller holds the lock that keeps two stores from
// migrating at once. A store whose schema is current runs no DDL at all,
// so a database user that may only read and write rows can record.
func applyMigrations(ctx context.Context, tx *sql.Tx, be backend, dialect func(migration) string, haveTable bool) error {
	if !haveTable {
		if _, err := tx.ExecContext(ctx, createMigrations); err != nil {
			return err
		}
	}
	applied, err := appliedVersions(ctx, tx)
	if err != nil {
		return err
	}
	all := migrations()
	if err := checkNewer(applied, all); err != nil {
		return err
	}
	for _, m := range all {
		if applied[m.version] {
			continue
		}
		if _, err := tx.ExecContext(ctx, dialect(m)); err != nil {
			err = fmt.Errorf("schema version %d (%s): %w", m.version, m.description, err)
			if len(applied) > 0 { // a store that exists, written by an earlier version
				return &engine.Error{Kind: engine.KindUsage, Reason: "cannot upgrade the audit store to " + err.Error(), Err: err, Hints: upgradeHints(m)}
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, be.rebind(`INSERT INTO schema_migrations(version, description, applied) VALUES(?, ?, ?)`),
			m.version, m.description, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}

// upgradeHints say what to do when a store cannot be upgraded to m, most
// often because the user recording may write rows but not alter tables.
func upgradeHints(m migration) []string {
	hints := []string{"open it once for recording as a user that may alter its tables (for PostgreSQL, their owner): that upgrades it, and then any user that may write rows records as before"}
	if m.readsWithout {
		hints = append(hints, "render audit show and render audit chain read it as it is, without upgrading it")
	}
	return hints
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func appliedVersions(ctx context.Context, q querier) (map[int]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

// checkNewer refuses a schema that a newer program wrote.
func checkNewer(applied map[int]bool, all []migration) error {
	latest := all[len(all)-1].version
	for v := range applied {
		if v > latest {
			return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("the audit store has schema version %d, newer than this program knows (%d)", v, latest),
				Hints: []string{"use the render that wrote it, or a newer one"}}
		}
	}
	return nil
}

// migrateTx is the end of either backend's migrate: in tx, under the lock
// the backend has taken, it applies the migrations the store lacks (have
// tells whether it has a schema_migrations table yet), each in the
// database's dialect, and commits.
func migrateTx(ctx context.Context, tx *sql.Tx, be backend, have func(context.Context, querier) (bool, error), dialect func(migration) string) error {
	haveTable, err := have(ctx, tx)
	if err != nil {
		return err
	}
	if err := applyMigrations(ctx, tx, be, dialect, haveTable); err != nil {
		return err
	}
	return tx.Commit()
}

// checkMigrated is either backend's check: a database without a
// schema_migrations table (have tells) holds no store, an ErrNoStore usage
// error at where with reason and hint; one with it must be current enough
// to read (checkCurrent).
func checkMigrated(ctx context.Context, db *sql.DB, where string, have func(context.Context, querier) (bool, error), reason, hint string) (map[int]bool, error) {
	haveTable, err := have(ctx, db)
	if err != nil {
		return nil, err
	}
	if !haveTable {
		return nil, &engine.Error{Kind: engine.KindUsage, Path: where, Reason: reason, Err: ErrNoStore, Hints: []string{hint}}
	}
	return checkCurrent(ctx, db, where)
}

// checkCurrent verifies, without writing, that the store can be read as it
// is: every migration has been applied, or lacks only versions that reads
// can do without (see migration.readsWithout). It returns the versions
// applied, for the store's queries to read only what the schema has.
func checkCurrent(ctx context.Context, q querier, where string) (map[int]bool, error) {
	applied, err := appliedVersions(ctx, q)
	if err != nil {
		return nil, err
	}
	all := migrations()
	if err := checkNewer(applied, all); err != nil {
		err.(*engine.Error).Path = where
		return nil, err
	}
	for _, m := range all {
		if !applied[m.version] && !m.readsWithout {
			return nil, &engine.Error{Kind: engine.KindUsage, Path: where, Reason: fmt.Sprintf("the audit store lacks schema version %d (%s) and is opened read-only", m.version, m.description),
				Hints: []string{"record one render with --audit pointing at it (that upgrades it), then read again"}}
		}
	}
	return applied, nil
}
