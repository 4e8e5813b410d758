package audit

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	// another server connection. A URL's own default_query_exec_mode wins
	// for reads; writes go as one pipeline of unnamed statements (write).
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

// write stores records in one transaction, sent in one round trip: a
// pipeline of statements that PostgreSQL runs as one implicit transaction,
// committed at its end (the Sync that closes it) or rolled back at the
// first error. It needs no state past the transaction: the statements are
// unnamed, the settings local, so it works through PgBouncer in
// transaction mode.
//
// First the statement timeout is set on the database's side for this
// transaction only (set_config(..., true)), where a startup parameter
// would be refused by PgBouncer: the database ends a statement that runs
// or waits on a lock past it even when the client has gone. The prune
// lock is taken shared, so that a record never commits a reference to a
// prompt a prune is removing: a prune waits for the writes under way and
// holds new ones until it commits.
//
// Then, with a few statements for all of the records, whatever their
// number and depth: their inputs, their prompts and the parts of the
// prompts that are new, the metadata of recorded prompts known before only
// as embedded, and their ids. Prompts are inserted in address order with
// ON CONFLICT DO NOTHING: a writer that meets a prompt another transaction
// is inserting waits for that one to end and then skips it (or inserts it,
// if that one rolled back), so concurrent records of one parent store it
// once and never fail. Only the statement that inserted a prompt inserts
// its parts, so parts never conflict; the metadata updates lock their rows
// in address order, and the ids come after every prompt, in sorted order.
// Locks are thus always taken in one order, and no two transactions can
// deadlock.
func (postgresBackend) write(ctx context.Context, db *sql.DB, recs []*record, timeout time.Duration) error {
	batch := &pgconn.Batch{}
	var setup params
	setup.scalar(oidText, int8Text(max(timeout.Milliseconds(), 0)))
	setup.scalar(oidInt8, int8Text(pruneLock))
	setup.queue(batch, `SELECT set_config('statement_timeout', $1, true), pg_advisory_xact_lock_shared($2)`)
	queueInputs(batch, recs)
	queuePrompts(batch, batchRows(recs))
	queueTops(batch, recs)
	queueIDs(batch, recs)
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the PostgreSQL connection is a %T, not pgx's", dc)
		}
		_, err := c.Conn().PgConn().ExecBatch(ctx, batch).ReadAll()
		return err
	})
}

// provenances adds the provenance columns of n prompts rows: library,
// short, variant and version.
func (p *params) provenances(n int, at func(i int) engine.Provenance) {
	p.texts(n, func(i int) string { return at(i).Library })
	p.texts(n, func(i int) string { return at(i).Short })
	p.texts(n, func(i int) string { return at(i).Variant })
	p.texts(n, func(i int) string { return at(i).Version })
}

// origins adds the origin columns of n prompts rows: label, commit,
// input, max tokens and tokens.
func (p *params) origins(n int, at func(i int) origin) {
	p.texts(n, func(i int) string { return at(i).label })
	p.texts(n, func(i int) string { return at(i).commit })
	p.texts(n, func(i int) string { return at(i).input })
	p.int8s(n, func(i int) int64 { return at(i).maxTokens })
	p.texts(n, func(i int) string { return at(i).tokens })
}

// queuePrompts inserts the prompts of rows, and the parts of those that
// no other transaction stored first, in one statement.
func queuePrompts(batch *pgconn.Batch, rows []batchRow) {
	n := len(rows)
	metas := make([]meta, n)
	var parts []partRow
	for i, r := range rows {
		metas[i] = r.rec.meta(r.node)
		for j, seg := range r.node.segs {
			child, region := r.node.kid(j)
			parts = append(parts, partRow{r.node.hash, int32(j), seg, child, region})
		}
	}
	var p params
	p.texts(n, func(i int) string { return rows[i].node.hash })
	p.texts(n, func(i int) string { return metas[i].sha256 })
	p.int8s(n, func(i int) int64 { return rows[i].node.size })
	p.texts(n, func(i int) string { return metas[i].variant })
	p.provenances(n, func(i int) engine.Provenance { return metas[i].prov })
	p.texts(n, func(i int) string { return rows[i].rec.when })
	p.texts(n, func(i int) string { return metas[i].budget })
	p.texts(n, func(i int) string { return rows[i].sig })
	p.origins(n, func(i int) origin { return metas[i].origin })
	k := len(parts)
	p.texts(k, func(i int) string { return parts[i].hash })
	p.int4s(k, func(i int) int32 { return parts[i].seq })
	p.byteas(k, func(i int) string { return parts[i].bytes })
	p.texts(k, func(i int) string { return parts[i].child })
	p.texts(k, func(i int) string { return parts[i].region })
	p.queue(batch, `WITH fresh AS (
		INSERT INTO prompts(hash, sha256, size, variant, library, library_short, variant_hash, version, recorded, budget, signature,
			label, git_commit, input, max_tokens, token_encoding)
		SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
			$12::text[], $13::text[], $14::text[], $15::int8[], $16::text[])
		ON CONFLICT (hash) DO NOTHING RETURNING hash)
	INSERT INTO parts(hash, seq, bytes, child, region)
	SELECT * FROM unnest($17::text[], $18::int4[], $19::bytea[], $20::text[], $21::text[]) AS p(hash, seq, bytes, child, region)
	WHERE p.hash IN (SELECT hash FROM fresh)`)
}

// partRow is a parts row.
type partRow struct {
	hash   string
	seq    int32
	bytes  string
	child  string
	region string
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

// queueTops gives the recorded prompts that were stored before, only as
// embedded in another, the metadata of their record (see updateTop): a
// prompt recorded again, the common case, or inserted by this transaction
// with its metadata, is left as it is. The rows to update are locked
// first, in address order. Of several records of one prompt, the first
// one's metadata is written.
func queueTops(batch *pgconn.Batch, recs []*record) {
	byTop := map[string]*record{}
	for _, rec := range recs {
		if _, ok := byTop[rec.top.hash]; !ok {
			byTop[rec.top.hash] = rec
		}
	}
	tops := slices.SortedFunc(maps.Values(byTop), func(a, b *record) int { return strings.Compare(a.top.hash, b.top.hash) })
	sigs := make([]string, len(tops))
	for i, r := range tops {
		// The top's row as the record signed it, stamped with the
		// record's own time (see updateTopRow).
		sigs[i] = r.sigs[slices.Index(r.nodes, r.top)]
	}
	n := len(tops)
	var p params
	p.texts(n, func(i int) string { return tops[i].top.hash })
	p.texts(n, func(i int) string { return tops[i].sha256 })
	p.texts(n, func(i int) string { return tops[i].variant })
	p.provenances(n, func(i int) engine.Provenance { return tops[i].prov })
	p.texts(n, func(i int) string { return tops[i].budget })
	p.texts(n, func(i int) string { return tops[i].when })
	p.texts(n, func(i int) string { return sigs[i] })
	p.origins(n, func(i int) origin { return tops[i].origin })
	p.queue(batch, `WITH t(hash, sha256, variant, library, library_short, variant_hash, version, budget, recorded, signature,
			label, git_commit, input, max_tokens, token_encoding) AS (
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
			$11::text[], $12::text[], $13::text[], $14::int8[], $15::text[])),
	bare AS MATERIALIZED (
		SELECT hash FROM prompts WHERE hash IN (SELECT hash FROM t) AND variant = '' ORDER BY hash FOR UPDATE)
	UPDATE prompts SET sha256 = t.sha256, variant = t.variant, library = t.library, library_short = t.library_short, variant_hash = t.variant_hash,
		version = t.version, budget = t.budget, recorded = t.recorded, signature = t.signature, label = t.label, git_commit = t.git_commit,
		input = t.input, max_tokens = t.max_tokens, token_encoding = t.token_encoding
	FROM t WHERE prompts.hash = t.hash AND prompts.hash IN (SELECT hash FROM bare) AND prompts.variant = ''`)
}

// queueInputs stores the records' inputs, each once.
func queueInputs(batch *pgconn.Batch, recs []*record) {
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
		return
	}
	var p params
	p.texts(len(hash), func(i int) string { return hash[i] })
	p.byteas(len(hash), func(i int) string { return string(data[i]) })
	p.texts(len(hash), func(i int) string { return when[i] })
	p.queue(batch, `INSERT INTO inputs(hash, data, recorded) SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[]) ORDER BY 1
		ON CONFLICT DO NOTHING`)
}

// queueIDs stores the records' ids, in sorted order.
func queueIDs(batch *pgconn.Batch, recs []*record) {
	var ids [][4]string
	for _, rec := range recs {
		for _, id := range rec.ids {
			ids = append(ids, [4]string{id[0], id[1], rec.top.hash, id[2]})
		}
	}
	if len(ids) == 0 {
		return
	}
	slices.SortFunc(ids, func(a, b [4]string) int { return slices.Compare(a[:], b[:]) })
	ids = slices.CompactFunc(ids, func(a, b [4]string) bool { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] })
	var p params
	for col := range 4 {
		p.texts(len(ids), func(i int) string { return ids[i][col] })
	}
	p.queue(batch, `INSERT INTO ids(name, value, hash, signature) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
		ON CONFLICT DO NOTHING`)
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
