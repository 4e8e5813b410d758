package audit

import (
	"context"
	"database/sql"
	"maps"
	"net/url"
	"slices"
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

// Readers is the number of connections a store reads on at once, beside
// its writers' (WithWriters): a replica's connection budget on PostgreSQL
// is Readers + its writers, 6 by default.
const Readers = 4

type postgresBackend struct {
	where   string
	timeout time.Duration // the statement timeout, set in each transaction
}

// redact returns target without its password, for messages.
func redact(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "a postgres:// URL"
	}
	return u.Redacted()
}

// openPostgres connects to the database a postgres:// URL names, through
// pgx's database/sql driver, with at most conns connections.
func openPostgres(target string, conns int, timeout time.Duration) (*sql.DB, backend, string, error) {
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
	// Nothing else is set at connection start, where PgBouncer refuses
	// what it does not track: the statement timeout is set in each
	// transaction (SET LOCAL), reads run in READ ONLY transactions, and
	// statements are sent unnamed, never prepared once and reused on a
	// later transaction, which in PgBouncer's transaction mode may run on
	// another server connection. A URL's own default_query_exec_mode wins.
	if _, ok := urlParam(target, "default_query_exec_mode"); !ok {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	db := stdlib.OpenDB(*cfg)
	// A transaction holds one connection for a few statements; bounding the
	// pool keeps many replicas within the server's max_connections.
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db, postgresBackend{where, timeout}, where, nil
}

// urlParam is the value of a query parameter of a postgres:// URL.
func urlParam(target, name string) (string, bool) {
	u, err := url.Parse(target)
	if err != nil {
		return "", false
	}
	v, ok := u.Query()[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
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

// begin sets the statement timeout on the database's side for this
// transaction only (SET LOCAL), where a startup parameter would be refused
// by PgBouncer: the database ends a statement that runs or waits on a
// lock past it even when the client has gone.
//
// It also takes the prune lock shared, so that a record never commits a
// reference to a prompt a prune is removing: a prune waits for the writes
// under way and holds new ones until it commits.
func (postgresBackend) begin(ctx context.Context, tx *sql.Tx, timeout time.Duration) error {
	_, err := tx.ExecContext(ctx, `SELECT set_config('statement_timeout', $1, true), pg_advisory_xact_lock_shared($2)`,
		strconv.FormatInt(max(timeout.Milliseconds(), 0), 10), pruneLock)
	return err
}

func (postgresBackend) lockForPrune(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, pruneLock)
	return err
}

func (postgresBackend) keptTable() []string {
	return []string{`CREATE TEMPORARY TABLE prune_kept(hash TEXT COLLATE "C" PRIMARY KEY) ON COMMIT DROP`}
}

func setLocalTimeout(ctx context.Context, tx *sql.Tx, timeout time.Duration) error {
	if timeout <= 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT set_config('statement_timeout', $1, true)`, strconv.FormatInt(timeout.Milliseconds(), 10))
	return err
}

// write stores records with a few statements for all of them, whatever
// their number and depth, in one READ COMMITTED transaction: their inputs,
// their prompts, the parts of the prompts that are new, the metadata of
// recorded prompts known before only as embedded, and their ids. Prompts
// are inserted in address order with ON CONFLICT DO NOTHING: a writer
// that meets a prompt another transaction is inserting waits for that one
// to end and then skips it (or inserts it, if that one rolled back), so
// concurrent records of one parent store it once and never fail. Only the
// transaction that inserted a prompt inserts its parts, so parts never
// conflict; the metadata updates and the ids come after every prompt, in
// sorted order. Locks are thus always taken in one order, and no two
// transactions can deadlock.
func (postgresBackend) write(ctx context.Context, tx *sql.Tx, recs []*record) error {
	if err := writeInputs(ctx, tx, recs); err != nil {
		return err
	}
	rows := batchRows(recs)
	n := len(rows)
	hash, sha, variant, lib, short, vhash, version, when, budget, sig := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	size := make([]int64, n)
	label, commit, input, tokens, maxTokens := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	byHash := make(map[string]*node, n)
	for i, r := range rows {
		nd, rec := r.node, r.rec
		m := rec.meta(nd)
		hash[i], sha[i], size[i], variant[i], when[i], sig[i] = nd.hash, m.sha256, nd.size, m.variant, rec.when, r.sig
		lib[i], short[i], vhash[i], version[i], budget[i] = m.prov.Library, m.prov.Short, m.prov.Variant, m.prov.Version, m.budget
		o := m.origin
		label[i], commit[i], input[i], maxTokens[i], tokens[i] = o.label, o.commit, o.input, o.maxTokens, o.tokens
		byHash[nd.hash] = nd
	}
	fresh, err := queryStrings(ctx, tx, `INSERT INTO prompts(hash, sha256, size, variant, library, library_short, variant_hash, version, recorded, budget, signature,
		label, git_commit, input, max_tokens, token_encoding)
		SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
			$12::text[], $13::text[], $14::text[], $15::int8[], $16::text[])
		ON CONFLICT (hash) DO NOTHING RETURNING hash`, hash, sha, size, variant, lib, short, vhash, version, when, budget, sig,
		label, commit, input, maxTokens, tokens)
	if err != nil {
		return err
	}
	isFresh := make(map[string]bool, len(fresh))
	var pHash, pChild, pRegion []string
	var pSeq []int32
	var pBytes [][]byte
	for _, h := range fresh {
		isFresh[h] = true
		nd := byHash[h]
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
	if err := updateTops(ctx, tx, recs, isFresh); err != nil {
		return err
	}
	return writeIDs(ctx, tx, recs)
}

// batchRow is the prompts row a batch writes for one prompt: the node, the
// record whose metadata it carries (the one that recorded it, if any, else
// one that embeds it) and that record's signature of the row.
type batchRow struct {
	node *node
	rec  *record
	sig  string
}

// batchRows lists each prompt of recs once, in address order.
func batchRows(recs []*record) []batchRow {
	byHash := map[string]batchRow{}
	for _, rec := range recs {
		for i, nd := range rec.nodes {
			have, ok := byHash[nd.hash]
			if !ok || (nd == rec.top && have.node != have.rec.top) {
				byHash[nd.hash] = batchRow{nd, rec, rec.sigs[i]}
			}
		}
	}
	return slices.SortedFunc(maps.Values(byHash), func(a, b batchRow) int { return strings.Compare(a.node.hash, b.node.hash) })
}

// updateTops gives the recorded prompts that were stored before, only as
// embedded in another, the metadata of their record. Which of them still
// lack it is asked in one query: a prompt recorded again, the common case,
// needs no update.
func updateTops(ctx context.Context, tx *sql.Tx, recs []*record, fresh map[string]bool) error {
	var tops []string
	for _, rec := range recs {
		if !fresh[rec.top.hash] {
			tops = append(tops, rec.top.hash)
		}
	}
	if len(tops) == 0 {
		return nil
	}
	slices.Sort(tops)
	bare, err := queryStrings(ctx, tx, `SELECT hash FROM prompts WHERE hash = ANY($1::text[]) AND variant = '' ORDER BY hash`, slices.Compact(tops))
	if err != nil || len(bare) == 0 {
		return err
	}
	byTop := map[string]*record{}
	for _, rec := range recs {
		if _, ok := byTop[rec.top.hash]; !ok {
			byTop[rec.top.hash] = rec
		}
	}
	for _, h := range bare {
		if err := byTop[h].updateTopRow(ctx, tx, postgresBackend{}.rebind); err != nil {
			return err
		}
	}
	return nil
}

// writeInputs stores the records' inputs, each once.
func writeInputs(ctx context.Context, tx *sql.Tx, recs []*record) error {
	seen := map[string]bool{}
	var hash, when []string
	var data [][]byte
	for _, rec := range recs {
		if rec.input == nil || seen[rec.origin.input] {
			continue
		}
		seen[rec.origin.input] = true
		hash, data, when = append(hash, rec.origin.input), append(data, rec.input), append(when, rec.when)
	}
	if len(hash) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO inputs(hash, data, recorded) SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[]) ORDER BY 1
		ON CONFLICT DO NOTHING`, hash, data, when)
	return err
}

// writeIDs stores the records' ids, in sorted order.
func writeIDs(ctx context.Context, tx *sql.Tx, recs []*record) error {
	var ids [][4]string
	for _, rec := range recs {
		for _, id := range rec.ids {
			ids = append(ids, [4]string{id[0], id[1], rec.top.hash, id[2]})
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.SortFunc(ids, func(a, b [4]string) int { return slices.Compare(a[:], b[:]) })
	ids = slices.CompactFunc(ids, func(a, b [4]string) bool { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] })
	names, values, hashes, sigs := make([]string, len(ids)), make([]string, len(ids)), make([]string, len(ids)), make([]string, len(ids))
	for i, id := range ids {
		names[i], values[i], hashes[i], sigs[i] = id[0], id[1], id[2], id[3]
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO ids(name, value, hash, signature) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
		ON CONFLICT DO NOTHING`, names, values, hashes, sigs)
	return err
}

// queryStrings runs a query whose rows are one text column.
func queryStrings(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// reader runs a read in one read-only REPEATABLE READ transaction, so that
// its queries see one snapshot, with sequential scans discouraged: the
// recursive query that walks a chain must probe the primary key once per
// level, and on tables the planner has no statistics for yet (a new store,
// a chain just recorded) it would otherwise scan the whole table at every
// level, the square of the depth in all.
func (b postgresBackend) reader(ctx context.Context, db *sql.DB) (querier, func(), error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	if err := setLocalTimeout(ctx, tx, b.timeout); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return tx, func() { tx.Rollback() }, nil
}
