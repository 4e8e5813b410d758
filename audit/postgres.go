package audit

import (
	"context"
	"database/sql"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/promptsmith/promptsmith/engine"
)

// migrationLock is the key of the transaction-scoped advisory lock that
// keeps two stores opening at once from migrating the same database
// together: the second waits, then finds every version applied.
const migrationLock int64 = 0x7073_6175_6469_7431 // "psaudit1"

// maxConns bounds the connections one Store opens to PostgreSQL.
const maxConns = 16

type postgresBackend struct{ where string }

// redact returns target without its password, for messages.
func redact(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "a postgres:// URL"
	}
	return u.Redacted()
}

// openPostgres connects to the database a postgres:// URL names, through
// pgx's database/sql driver. A read-only store's sessions have
// default_transaction_read_only on, so nothing it runs can write.
func openPostgres(target string, readOnly bool, timeout time.Duration) (*sql.DB, backend, string, error) {
	where := redact(target)
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, nil, "", &engine.Error{Kind: engine.KindUsage, Path: where, Reason: "not a usable PostgreSQL URL: " + err.Error(), Err: err, Hints: openHints(target)}
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "promptsmith audit"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	// The server ends a statement that runs or waits on a lock past the
	// timeout itself, so that a write stuck behind a locked table frees
	// its connection even when the client is gone. A URL's own
	// statement_timeout wins.
	if _, ok := cfg.RuntimeParams["statement_timeout"]; !ok && timeout > 0 {
		cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(timeout.Milliseconds(), 10)
	}
	db := stdlib.OpenDB(*cfg)
	// A record holds one connection for a few statements; bounding the pool
	// keeps many replicas within the server's max_connections.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns / 4)
	return db, postgresBackend{where}, where, nil
}

// rebind numbers the ? placeholders $1, $2, … (no query here has a ? in a
// string literal).
func (postgresBackend) rebind(q string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(q, '?')
		if i < 0 {
			b.WriteString(q)
			return b.String()
		}
		n++
		b.WriteString(q[:i])
		b.WriteString("$" + strconv.Itoa(n))
		q = q[i+1:]
	}
}

func (postgresBackend) hashArg() string { return `CAST(? AS TEXT) COLLATE "C"` }

// migrate takes pg_advisory_xact_lock inside the migration transaction, so
// that of several replicas starting at once one migrates and the others
// wait for its commit; the lock ends with the transaction.
func (b postgresBackend) migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return err
	}
	return migrateTx(ctx, tx, b, b.haveMigrations, func(m migration) string { return m.postgres })
}

// haveMigrations reports whether schema_migrations exists in the URL's
// search_path.
func (postgresBackend) haveMigrations(ctx context.Context, q querier) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var exists bool
	if rows.Next() {
		err = rows.Scan(&exists)
	}
	if err == nil {
		err = rows.Err()
	}
	return exists, err
}

func (b postgresBackend) check(ctx context.Context, db *sql.DB) (map[int]bool, error) {
	return checkMigrated(ctx, db, b.where, b.haveMigrations, "no audit store in this database (it has no schema_migrations table)",
		"record a render with --audit and this URL first; reading never creates tables")
}

// write stores a record with four statements (five when a key signs the
// metadata update), whatever its depth, in one READ COMMITTED transaction.
// Prompts are inserted in address order with ON CONFLICT DO NOTHING: a
// writer that meets a prompt another transaction is inserting waits for
// that one to end and then skips it (or inserts it, if that one rolled
// back), so concurrent records of one parent store it once and never fail. Only the transaction that inserted a prompt inserts
// its parts, so parts never conflict; the metadata update and the ids come
// after every prompt, ids in sorted order. Locks are thus always taken in
// one order, and no two records can deadlock.
func (postgresBackend) write(ctx context.Context, tx *sql.Tx, rec *record) error {
	n := len(rec.nodes)
	hash, sha, variant, lib, short, vhash, version, when, budget := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sig := rec.sigs
	size := make([]int64, n)
	label, commit, input, tokens, maxTokens := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	byHash := make(map[string]*node, n)
	for i, nd := range rec.nodes {
		m := rec.meta(nd)
		hash[i], sha[i], size[i], variant[i], when[i] = nd.hash, m.sha256, nd.size, m.variant, rec.when
		lib[i], short[i], vhash[i], version[i], budget[i] = m.prov.Library, m.prov.Short, m.prov.Variant, m.prov.Version, m.budget
		o := m.origin
		label[i], commit[i], input[i], maxTokens[i], tokens[i] = o.label, o.commit, o.input, o.maxTokens, o.tokens
		byHash[nd.hash] = nd
	}
	if err := writeInput(ctx, tx, postgresBackend{}.rebind, rec); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `INSERT INTO prompts(hash, sha256, size, variant, library, library_short, variant_hash, version, recorded, budget, signature,
		label, git_commit, input, max_tokens, token_encoding)
		SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
			$12::text[], $13::text[], $14::text[], $15::int8[], $16::text[])
		ON CONFLICT (hash) DO NOTHING RETURNING hash`, hash, sha, size, variant, lib, short, vhash, version, when, budget, sig,
		label, commit, input, maxTokens, tokens)
	if err != nil {
		return err
	}
	var fresh []*node
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return err
		}
		fresh = append(fresh, byHash[h])
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	var pHash, pChild, pRegion []string
	var pSeq []int32
	var pBytes [][]byte
	topNew := false
	for _, nd := range fresh {
		topNew = topNew || nd == rec.top
		for i, seg := range nd.segs {
			child, region := nd.kid(i)
			pHash, pSeq, pBytes, pChild, pRegion = append(pHash, nd.hash), append(pSeq, int32(i)), append(pBytes, []byte(seg)),
				append(pChild, child), append(pRegion, region)
		}
	}
	if len(pHash) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO parts(hash, seq, bytes, child, region)
			SELECT * FROM unnest($1::text[], $2::int4[], $3::bytea[], $4::text[], $5::text[])`,
			pHash, pSeq, pBytes, pChild, pRegion); err != nil {
			return err
		}
	}
	if !topNew {
		if err := rec.updateTopRow(ctx, tx, postgresBackend{}.rebind); err != nil {
			return err
		}
	}
	if len(rec.ids) > 0 {
		names, values, hashes, sigs := make([]string, len(rec.ids)), make([]string, len(rec.ids)), make([]string, len(rec.ids)), make([]string, len(rec.ids))
		for i, id := range rec.ids {
			names[i], values[i], hashes[i], sigs[i] = id[0], id[1], rec.top.hash, id[2]
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO ids(name, value, hash, signature) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
			ON CONFLICT DO NOTHING`, names, values, hashes, sigs); err != nil {
			return err
		}
	}
	return nil
}

// reader runs a read in one read-only REPEATABLE READ transaction, so that
// its queries see one snapshot, with sequential scans discouraged: the
// recursive query that walks a chain must probe the primary key once per
// level, and on tables the planner has no statistics for yet (a new store,
// a chain just recorded) it would otherwise scan the whole table at every
// level, the square of the depth in all.
func (postgresBackend) reader(ctx context.Context, db *sql.DB) (querier, func(), error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return tx, func() { tx.Rollback() }, nil
}
