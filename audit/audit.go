// Package audit keeps every rendered prompt, with the ids it was rendered
// with and the library that produced it, so that a chain of nested
// delegations can be reconstructed from any link: the subagent prompt, its
// parent, the parent's parent, down to the root.
//
// Storage is linear in the text. A prompt that embeds another verbatim is
// stored as its own bytes only: the text before the embedded region, a
// reference to the embedded prompt, and the text after; the embedded prompt
// is stored the same way, recursively. Every stored prompt is addressed by a
// hash of its own bytes and of the addresses it refers to (a Merkle tree),
// so a parent that many delegations embed, or that many server replicas
// record at once, is stored once, and a chain nested d levels deep costs its
// length to store rather than d times its length.
//
// Two backends share the schema and the behaviour: an embedded SQLite file
// (the default: no server, no cgo) and PostgreSQL, which several render
// servers can share. Open takes a file path or a postgres:// URL.
//
// Nothing is served as recorded unless it verifies: every read recomputes
// the address of each prompt it reads from the bytes it read, so a changed
// byte or a redirected child pointer is an error naming the row, and with
// a key (WithKey) every row must also carry a signature that verifies.
// Verify checks the whole store.
package audit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// Store is an audit store. It is safe for concurrent use, and any number of
// Stores, in one process or many, may share one database.
type Store struct {
	db       *sql.DB
	be       backend
	group    *group // the writers of a store opened for writing (group.go)
	where    string // the file, or the URL without its password: what errors name
	readOnly bool
	// budget says that the schema has prompts.budget (budgetVersion). Only a
	// read-only store of an earlier version lacks it; it reads every
	// budget as none.
	budget bool
	// signed says that the schema has the signature columns
	// (signatureVersion); a read-only store of an earlier version reads
	// every signature as none.
	signed bool
	// origin says that the schema has the origin columns and the inputs
	// table (originVersion); a read-only store of an earlier version
	// reads every origin as none.
	origin bool
	key    []byte // signs what the store writes and checks what it reads; nil for none
	// statementTimeout bounds one write or read, whatever its caller's
	// context allows (WithStatementTimeout).
	statementTimeout time.Duration
	now              func() time.Time // the time a record is made: audit metadata, never prompt text
}

// backend is what differs between SQLite and PostgreSQL: opening, the
// schema, placeholders, and writing a record in one short transaction.
type backend interface {
	// rebind rewrites the ? placeholders of a query for the database.
	rebind(query string) string
	// hashArg is a ? placeholder typed as a hash column.
	hashArg() string
	// migrate brings the schema up to date, one version at a time, each
	// recorded in schema_migrations; stores opening at once do not race.
	migrate(ctx context.Context, db *sql.DB) error
	// check verifies, without writing, that the schema can be read (see
	// checkCurrent), and returns the versions it has.
	check(ctx context.Context, db *sql.DB) (map[int]bool, error)
	// write stores records in one transaction, which it commits:
	// idempotent, and safe against concurrent writers of the same prompts.
	// timeout bounds it on the database's side, where it has one.
	write(ctx context.Context, db *sql.DB, recs []*record, timeout time.Duration) error
	// lockForPrune waits for the writes under way and holds new ones until
	// tx ends.
	lockForPrune(ctx context.Context, tx *sql.Tx) error
	// keptTable are the statements that make the temporary table
	// prune_kept(hash) empty in the transaction.
	keptTable() []string
	// reader returns what the queries of one read run on, and a function
	// to call when they are done.
	reader(ctx context.Context, db *sql.DB) (querier, func(), error)
}

// Open opens the audit store at target for recording and reading,
// creating it and bringing its schema up to date as needed. target is a
// file path, for an embedded SQLite database, or a postgres:// (or
// postgresql://) URL. WithKey makes it sign what it records. ctx bounds
// the work of opening: the connection, and bringing the schema up to date.
func Open(ctx context.Context, target string, opts ...Option) (*Store, error) {
	return open(ctx, target, false, opts)
}

// OpenReadOnly opens an existing audit store for reading only: it creates
// nothing, changes nothing, and fails, naming target, when there is no
// audit store there. A store an earlier version of this package wrote is
// read as it is, without upgrading it, when what it lacks reads as empty
// (budget reports, which it never recorded); otherwise the error says to
// open it with Open once. WithKey makes it refuse what is not signed.
func OpenReadOnly(ctx context.Context, target string, opts ...Option) (*Store, error) {
	return open(ctx, target, true, opts)
}

// IsURL reports whether target names a PostgreSQL database rather than a file.
func IsURL(target string) bool {
	t := strings.ToLower(target)
	return strings.HasPrefix(t, "postgres://") || strings.HasPrefix(t, "postgresql://")
}

func open(ctx context.Context, target string, readOnly bool, opts []Option) (*Store, error) {
	o := options{statementTimeout: DefaultStatementTimeout, writers: DefaultWriters}
	for _, opt := range opts {
		opt(&o)
	}
	if err := keyError(o); err != nil {
		return nil, err
	}
	var (
		db    *sql.DB
		be    backend
		where string
		err   error
	)
	if IsURL(target) {
		conns := Readers
		if !readOnly {
			conns += o.writers
		}
		db, be, where, err = openPostgres(target, conns, o.statementTimeout)
	} else {
		db, be, where, err = openSQLite(target, readOnly)
	}
	if err != nil {
		return nil, err
	}
	applied := map[int]bool{}
	if readOnly {
		applied, err = be.check(ctx, db)
	} else if err = be.migrate(ctx, db); err == nil {
		for _, m := range migrations() {
			applied[m.version] = true
		}
	}
	if err != nil {
		db.Close()
		var ae *engine.Error
		if errors.As(err, &ae) {
			if ae.Path == "" {
				ae.Path = where
			}
			return nil, err
		}
		return nil, &engine.Error{Kind: engine.KindUsage, Path: where, Reason: "cannot open the audit store: " + err.Error(), Err: err, Hints: openHints(target)}
	}
	s := &Store{db: db, be: be, where: where, readOnly: readOnly, budget: applied[budgetVersion], signed: applied[signatureVersion], origin: applied[originVersion],
		key: o.key, now: time.Now, statementTimeout: o.statementTimeout}
	if !readOnly {
		s.startWriters(o.writers)
	}
	return s, nil
}

func openHints(target string) []string {
	if IsURL(target) {
		return []string{"check that PostgreSQL answers at this address and that the database exists and lets this user create tables; the form is postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable"}
	}
	return []string{"check that the folder exists and is writable, and that the file is an audit database"}
}

// Close closes the store, once the transactions being written have
// committed; a Record still waiting to be taken fails.
func (s *Store) Close() error {
	s.stopWriters()
	return s.db.Close()
}

// Hash is the hex SHA-256 of a text: what sha256sum prints for a prompt
// file. Resolve finds a recorded prompt by it (or by a prefix of it) as well
// as by its address.
func Hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// record is what one Record writes: every prompt of the rendered one's
// tree, each once, in the order of their addresses so that concurrent
// writers take their locks in one order and cannot deadlock.
type record struct {
	top     *node
	nodes   []*node
	sigs    []string // the signature of each node's row, as nodes; '' without a key
	sha256  string
	variant string
	prov    engine.Provenance
	ids     [][3]string // name, value, signature; sorted
	budget  string      // the JSON of res.Budget; '' for a render without one
	origin  origin      // where the prompt was served from, and its input
	input   []byte      // the input's canonical JSON, stored in inputs; nil for none
	when    string
	key     []byte
}

// Record stores a rendered prompt with its ids, provenance and budget
// report (res.Budget, for a render fitted to a number of tokens), and
// every prompt it embeds verbatim, to any depth, each as its own bytes and
// references (see the package comment). It returns the prompt's address.
// Recording the same prompt again, from this Store or another on the same
// database, stores nothing new: its ids are added, and its variant,
// provenance and budget stay what its first record said.
//
// With a key (WithKey), every row it writes is signed; a prompt stored
// before by a writer without the key keeps its rows, unsigned.
//
// Cost: O(n) in the length n of res.Text, however deep its regions nest:
// the text is scanned and hashed once (twice with a key) before the
// transaction starts, and the transaction inserts one row per prompt and
// per segment, about n bytes in all.
func (s *Store) Record(ctx context.Context, v *engine.Variant, res *engine.Result) (string, error) {
	return s.RecordFrom(ctx, v, res, Origin{})
}

// RecordFrom is Record for a prompt with an origin: the label and commit
// that served it, and the input it was rendered from (origin.go).
func (s *Store) RecordFrom(ctx context.Context, v *engine.Variant, res *engine.Result, o Origin) (string, error) {
	if s.readOnly {
		return "", &engine.Error{Kind: engine.KindUsage, Path: s.where, Reason: "the audit store was opened read-only; nothing was recorded"}
	}
	top, nodes, err := split(v, res)
	if err != nil {
		return "", &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "cannot record the prompt: " + err.Error(), Err: err}
	}
	byHash := make(map[string]*node, len(nodes))
	for _, n := range nodes {
		byHash[n.hash] = n
	}
	sum := top.sha256 // a prompt that embeds nothing: the SHA-256 of its one segment, its text
	if sum == "" {
		sum = Hash(res.Text)
	}
	rec := &record{
		top:     top,
		nodes:   slices.SortedFunc(maps.Values(byHash), func(a, b *node) int { return strings.Compare(a.hash, b.hash) }),
		sha256:  sum,
		variant: res.Variant,
		prov:    res.Provenance,
		when:    s.now().UTC().Format(time.RFC3339),
		key:     s.key,
	}
	rec.origin, rec.input = o.row()
	for _, name := range slices.Sorted(maps.Keys(res.IDs)) {
		id := [3]string{name, res.IDs[name], ""}
		if s.key != nil {
			id[2] = signID(s.key, id[0], id[1], top.hash)
		}
		rec.ids = append(rec.ids, id)
	}
	if res.Budget != nil {
		b, err := json.Marshal(res.Budget)
		if err != nil {
			return "", &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "cannot record the prompt's budget report: " + err.Error(), Err: err}
		}
		rec.budget = string(b)
	}
	rec.sigs = make([]string, len(rec.nodes))
	if s.key != nil {
		for i, n := range rec.nodes {
			r := rec.row(n, rec.when)
			rec.sigs[i] = signPrompt(s.key, &r, n.sums())
		}
	}
	if err := s.commit(ctx, rec); err != nil {
		if _, ok := err.(*engine.Error); ok {
			return "", err
		}
		return "", &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "cannot record the prompt: " + err.Error(), Err: err}
	}
	return top.hash, nil
}

// Entry is one stored prompt.
type Entry struct {
	Hash       string            `json:"hash"`             // its address
	SHA256     string            `json:"sha256,omitempty"` // the SHA-256 of its text, when known
	Variant    string            `json:"variant,omitempty"`
	IDs        map[string]string `json:"ids,omitempty"`
	Provenance engine.Provenance `json:"provenance,omitzero"` // the library that rendered it, when it was recorded itself
	Size       int64             `json:"size"`                // the length of its text in bytes
	Recorded   string            `json:"recorded"`
	// Budget says how the render recorded was fitted to a number of
	// tokens (engine.FitTokens): nil for a render without a budget, for a
	// prompt known only as embedded, and for one recorded before the store
	// kept budgets. Its cuts' unit, kind and sizes are kept, not the
	// engine's internal step counts.
	Budget *engine.BudgetReport `json:"budget,omitempty"`
	// Label and Commit are the label and git commit that served the
	// prompt (render serve --repo), when it was served from one.
	Label  string `json:"label,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Input is the address of the input the prompt was rendered from
	// (Store.Input reads it), and MaxTokens and Tokens the budget it was
	// rendered under: with render serve --audit-inputs only.
	Input     string `json:"input,omitempty"`
	MaxTokens int64  `json:"max_tokens,omitempty"`
	Tokens    string `json:"tokens,omitempty"`
	Text      string `json:"text,omitempty"`
}

// ErrNotFound is wrapped by the error for a hash or id the store does not hold.
var ErrNotFound = errors.New("not in the audit store")

// ErrAmbiguous is wrapped by the error for a key that names several prompts.
var ErrAmbiguous = errors.New("several prompts match")

// ErrNoStore is wrapped by the error of OpenReadOnly when there is no audit
// store at the target.
var ErrNoStore = errors.New("no audit store")

// The store's errors are engine.Errors: Path names the database (a file,
// or a URL without its password) when it could not be opened, written or
// verified; Key the hash or id asked for when it names no prompt, or
// several. A read that fails verification (KindIntegrity, ErrIntegrity)
// lists each row at fault in Also, by table (Path) and address (Key).

// isHex reports whether key could be the start of a hash.
func isHex(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return key != "" && len(key) <= 64
}

// MinPrefix is the fewest hex digits Resolve reads as a prefix of a hash:
// a shorter key names a prompt only as an id, so that a guess of one
// digit does not answer with whichever prompt comes first.
const MinPrefix = 8

// Resolve finds a prompt by its address, the SHA-256 of its text (for a
// prompt recorded itself, or one that embeds nothing), a unique prefix of
// either of MinPrefix hex digits or more, or an id value such as a
// delegation_id. A prefix is literal text: it is compared as a range of hex
// strings, never as a pattern. A key no prompt can have (a NUL, bytes that
// are not UTF-8: ids are input text) is not found, as on every backend,
// without asking the database.
func (s *Store) Resolve(ctx context.Context, key string) (string, error) {
	return s.resolve(ctx, key, MinPrefix)
}

func (s *Store) resolve(ctx context.Context, key string, minPrefix int) (string, error) {
	prefix := strings.ToLower(key)
	byPrefix := isHex(prefix) && len(prefix) >= minPrefix
	if !utf8.ValidString(key) || strings.ContainsRune(key, 0) {
		return "", keyNotFound(key, false)
	}
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	q := `SELECT hash FROM ids WHERE value = ?`
	args := []any{key}
	if byPrefix {
		// Every hash that starts with prefix sorts in [prefix, prefix+"g"):
		// hex digits all sort before g. The range reads the index.
		q += ` UNION SELECT hash FROM prompts WHERE hash >= ? AND hash < ?
			UNION SELECT hash FROM prompts WHERE sha256 >= ? AND sha256 < ?`
		args = append(args, prefix, prefix+"g", prefix, prefix+"g")
	}
	rows, err := s.db.QueryContext(ctx, s.be.rebind(q+` LIMIT 2`), args...)
	if err != nil {
		return "", s.readError(err)
	}
	defer rows.Close()
	var hashes []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return "", s.readError(err)
		}
		hashes = append(hashes, h)
	}
	if err := rows.Err(); err != nil {
		return "", s.readError(err)
	}
	switch len(hashes) {
	case 0:
		return "", keyNotFound(key, isHex(prefix) && !byPrefix)
	case 1:
		return hashes[0], nil
	}
	return "", &engine.Error{Kind: engine.KindInput, Key: key, Reason: "several prompts match; give more of the hash", Err: ErrAmbiguous}
}

// keyNotFound is the error of a key that names no prompt; short says the
// key is hex too short to be read as a prefix.
func keyNotFound(key string, short bool) error {
	if short {
		return &engine.Error{Kind: engine.KindInput, Key: key, Err: ErrNotFound,
			Reason: fmt.Sprintf("no id %s in the audit store, and a hash prefix is read from %d hex digits on", phrase.Quote(key), MinPrefix),
			Hints:  []string{fmt.Sprintf("give at least %d hex digits of the prompt's hash (or SHA-256), or a delegation_id, as render audit chain lists them", MinPrefix)}}
	}
	return &engine.Error{Kind: engine.KindInput, Key: key, Reason: "no prompt with this hash or id in the audit store", Err: ErrNotFound,
		Hints: []string{fmt.Sprintf("give a delegation_id, or a prompt's hash (or SHA-256) or a prefix of it of %d hex digits or more, as render audit chain lists them", MinPrefix)}}
}

func (s *Store) readError(err error) error {
	return &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "cannot read the audit store: " + err.Error(), Err: err}
}

func notFound(hash string) error {
	return &engine.Error{Kind: engine.KindInput, Key: hash, Reason: "no prompt with this hash in the audit store", Err: ErrNotFound,
		Hints: []string{"find the hash with render audit chain, or give a delegation_id"}}
}

// Get returns one prompt with its text, once every prompt its text is made
// of has verified (see the package comment); an error wrapping
// ErrIntegrity names the rows that did not. Cost: O(length of the text).
func (s *Store) Get(ctx context.Context, hash string) (Entry, error) {
	t, err := s.verified(ctx, hash)
	if err != nil {
		return Entry{}, err
	}
	e := t.meta[hash]
	if e.Text, err = assemble(t.parts, hash, nil); err != nil {
		return Entry{}, s.readError(err)
	}
	e.SHA256 = Hash(e.Text)
	if p := sumProblem(t.rows[hash], e.SHA256); p != nil {
		return Entry{}, s.integrityError([]Problem{*p})
	}
	return *e, nil
}

// MaxChainBytes bounds the texts Chain returns together: each link holds
// the one it embeds, so a deep chain's texts grow with the square of its
// depth.
const MaxChainBytes = 64 << 20

// Chain returns the prompt at hash followed by the prompt it embeds, and so
// on to the root: a delegation chain from the subagent up, each link with
// its text, verified as Get verifies. Cost: the total length of the texts
// it returns; Links gives the same chain without them.
func (s *Store) Chain(ctx context.Context, hash string) ([]Entry, error) {
	t, err := s.verified(ctx, hash)
	if err != nil {
		return nil, err
	}
	links := t.chain(hash)
	var total int64
	for _, l := range links {
		total += l.Size // verified: each row's size is the length of its text
	}
	if total > MaxChainBytes {
		return nil, &engine.Error{Kind: engine.KindUsage, Path: s.where,
			Reason: fmt.Sprintf("the chain of %.12s is %d prompts of %s in all, over the %s one answer holds", hash, len(links), phrase.Size(int(min(total, 1<<40))), phrase.Size(MaxChainBytes)),
			Hints:  []string{"read the chain without its texts (Links; render audit chain), then each prompt alone (Get; render audit show; GET /v1/audit/{hash})"}}
	}
	texts := map[string]string{}
	var ps []Problem
	for i := len(links) - 1; i >= 0; i-- { // from the root up: each text reuses the one it embeds
		h := links[i].Hash
		if links[i].Text, err = assemble(t.parts, h, texts); err != nil {
			return nil, s.readError(err)
		}
		texts[h] = links[i].Text
		links[i].SHA256 = Hash(links[i].Text)
		if p := sumProblem(t.rows[h], links[i].SHA256); p != nil {
			ps = append(ps, *p)
		}
	}
	if len(ps) > 0 {
		sortProblems(ps)
		return nil, s.integrityError(ps)
	}
	return links, nil
}

// Links returns the chain that Chain returns, without the texts: each
// prompt's metadata and size, verified as Get verifies: to verify them it
// reads and hashes the bytes of the chain once, whatever its depth, and
// hashes the text of each link that says its SHA-256 and embeds another
// once more, without building it. Cost: O(length of the prompt's text),
// and that again for each such link.
func (s *Store) Links(ctx context.Context, hash string) ([]Entry, error) {
	t, err := s.verified(ctx, hash)
	if err != nil {
		return nil, err
	}
	links := t.chain(hash)
	var ps []Problem
	for _, l := range links {
		r := t.rows[l.Hash]
		if r.sha256 == "" || len(t.parts[l.Hash]) < 2 {
			continue // nothing to check, or checked with its parts
		}
		sum, err := textSum(t.parts, l.Hash)
		if err != nil {
			return nil, s.readError(err)
		}
		if p := sumProblem(r, sum); p != nil {
			ps = append(ps, *p)
		}
	}
	if len(ps) > 0 {
		sortProblems(ps)
		return nil, s.integrityError(ps)
	}
	return links, nil
}

// verified loads the prompt at hash and every prompt it embeds, checks
// them (tree.check), and then decodes their budget reports: the tree, or
// the error that names what failed.
func (s *Store) verified(ctx context.Context, hash string) (*tree, error) {
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	t, err := s.load(ctx, hash)
	if err != nil {
		return nil, err
	}
	if ps := t.check(s.key); len(ps) > 0 {
		return nil, s.integrityError(ps)
	}
	for h, r := range t.rows {
		b, err := r.budgetReport()
		if err != nil { // check reported it already; never served undecoded
			return nil, s.integrityError([]Problem{budgetProblem(r)})
		}
		t.meta[h].Budget = b
	}
	return t, nil
}

// tree is the prompt at a hash and every prompt it embeds, as loaded.
type tree struct {
	rows  map[string]*promptRow
	parts map[string][]part
	ids   []idRow
	meta  map[string]*Entry
}

// chain follows the first embedded prompt of each link down to the root.
func (t *tree) chain(hash string) []Entry {
	var out []Entry
	seen := map[string]bool{}
	for hash != "" && !seen[hash] && t.meta[hash] != nil {
		seen[hash] = true
		out = append(out, *t.meta[hash])
		next := ""
		for _, p := range t.parts[hash] {
			if p.child != "" {
				next = p.child
				break
			}
		}
		hash = next
	}
	return out
}

// subtree selects the address of the prompt at ? and of every prompt it
// embeds, at any depth, in one query.
func (s *Store) subtree() string {
	return `WITH RECURSIVE tree(h) AS (
	SELECT ` + s.be.hashArg() + `
	UNION SELECT p.child FROM parts p JOIN tree ON p.hash = tree.h WHERE p.child <> ''
) `
}

// promptRow is one row of prompts as stored: what its signature covers,
// and the signature.
type promptRow struct {
	hash, sha256                                  string
	size                                          int64
	variant, library, short, variantHash, version string
	recorded, budget, signature                   string
	origin
}

// promptColumns selects the columns of a promptRow, from the table with
// the given prefix ("" or "alias."), as fields scans them. A read-only
// store of an earlier version reads the columns it lacks as empty.
func (s *Store) promptColumns(prefix string) string {
	budget := prefix + "budget"
	if !s.budget {
		budget = "''"
	}
	return prefix + "hash, " + prefix + "sha256, " + prefix + "size, " + prefix + "variant, " + prefix + "library, " +
		prefix + "library_short, " + prefix + "variant_hash, " + prefix + "version, " + prefix + "recorded, " + budget + ", " +
		s.signatureColumn(prefix) + ", " + s.originColumns(prefix)
}

// signatureColumn selects the signature of a row of prompts or ids.
func (s *Store) signatureColumn(prefix string) string {
	if !s.signed {
		return "''"
	}
	return prefix + "signature"
}

func (r *promptRow) fields() []any {
	return []any{&r.hash, &r.sha256, &r.size, &r.variant, &r.library, &r.short, &r.variantHash, &r.version, &r.recorded, &r.budget, &r.signature,
		&r.label, &r.commit, &r.input, &r.maxTokens, &r.tokens}
}

// entry is the row as an Entry, without ids, text or budget report: the
// budget is decoded once the row has verified (see verified).
func (r *promptRow) entry() *Entry {
	return &Entry{Hash: r.hash, SHA256: r.sha256, Size: r.size, Variant: r.variant, Recorded: r.recorded,
		Provenance: engine.Provenance{Library: r.library, Short: r.short, Variant: r.variantHash, Version: r.version},
		Label:      r.label, Commit: r.commit, Input: r.input, MaxTokens: r.maxTokens, Tokens: r.tokens}
}

// budgetReport decodes the row's budget column: nil for none, an error for
// one that is not a budget report, which checkPrompt reports as a problem
// of the row.
func (r *promptRow) budgetReport() (*engine.BudgetReport, error) {
	if r.budget == "" {
		return nil, nil
	}
	b := &engine.BudgetReport{}
	if err := json.Unmarshal([]byte(r.budget), b); err != nil {
		return nil, err
	}
	return b, nil
}

// load reads the prompt at hash and every prompt it embeds, with their
// bytes and ids: three queries however deep the nesting. It checks
// nothing, and decodes nothing a row holds (its budget report): verified
// does, once the rows have verified.
func (s *Store) load(ctx context.Context, hash string) (*tree, error) {
	db, done, err := s.be.reader(ctx, s.db)
	if err != nil {
		return nil, s.readError(err)
	}
	defer done()
	t := &tree{rows: map[string]*promptRow{}, parts: map[string][]part{}, meta: map[string]*Entry{}}
	rows, err := db.QueryContext(ctx, s.be.rebind(s.subtree()+`SELECT `+s.promptColumns("")+`
		FROM prompts WHERE hash IN (SELECT h FROM tree)`), hash)
	if err != nil {
		return nil, s.readError(err)
	}
	for rows.Next() {
		r := &promptRow{}
		if err := rows.Scan(r.fields()...); err != nil {
			rows.Close()
			return nil, s.readError(err)
		}
		t.rows[r.hash], t.meta[r.hash] = r, r.entry()
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.readError(err)
	}
	if t.meta[hash] == nil {
		return nil, notFound(hash)
	}

	rows, err = db.QueryContext(ctx, s.be.rebind(s.subtree()+`SELECT p.hash, p.seq, p.bytes, p.child, p.region
		FROM parts p WHERE p.hash IN (SELECT h FROM tree) ORDER BY p.hash, p.seq`), hash)
	if err != nil {
		return nil, s.readError(err)
	}
	for rows.Next() {
		var h string
		var p part
		var b []byte
		if err := rows.Scan(&h, &p.seq, &b, &p.child, &p.region); err != nil {
			rows.Close()
			return nil, s.readError(err)
		}
		p.bytes = string(b)
		t.parts[h] = append(t.parts[h], p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.readError(err)
	}

	rows, err = db.QueryContext(ctx, s.be.rebind(s.subtree()+`SELECT hash, name, value, `+s.signatureColumn("")+`
		FROM ids WHERE hash IN (SELECT h FROM tree) ORDER BY hash, name, value`), hash)
	if err != nil {
		return nil, s.readError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id idRow
		if err := rows.Scan(&id.hash, &id.name, &id.value, &id.signature); err != nil {
			return nil, s.readError(err)
		}
		t.ids = append(t.ids, id)
		if e := t.meta[id.hash]; e != nil {
			if e.IDs == nil {
				e.IDs = map[string]string{}
			}
			e.IDs[id.name] = id.value
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(err)
	}
	return t, nil
}

func (e Entry) String() string {
	return fmt.Sprintf("%s %s %v", e.Hash[:12], e.Variant, e.IDs)
}

// meta is what a record stores about one of its prompts beyond its bytes:
// everything for the prompt recorded, only the SHA-256 for a prompt it
// embeds that embeds nothing itself (the others' would cost a pass over
// their whole text each). The budget report is the recorded render's: a
// prompt it embeds was fitted, if at all, by a render of its own.
type meta struct {
	sha256, variant, budget string
	prov                    engine.Provenance
	origin                  origin
}

func (r *record) meta(n *node) meta {
	if n == r.top {
		return meta{sha256: r.sha256, variant: r.variant, budget: r.budget, prov: r.prov, origin: r.origin}
	}
	return meta{sha256: n.sha256}
}

// kid returns the embedded prompt, and its region, that follows segment i.
func (n *node) kid(i int) (child, region string) {
	if i < len(n.kids) {
		return n.kids[i], n.regions[i]
	}
	return "", ""
}

// row is the prompts row a record writes for n, recorded at the given time.
func (r *record) row(n *node, recorded string) promptRow {
	m := r.meta(n)
	return promptRow{hash: n.hash, sha256: m.sha256, size: n.size, variant: m.variant, library: m.prov.Library, short: m.prov.Short,
		variantHash: m.prov.Variant, version: m.prov.Version, recorded: recorded, budget: m.budget, origin: m.origin}
}

// updateTop gives a prompt stored before only as embedded in another the
// metadata of its own record, the time of that record, and the signature
// of the row that makes (” without a key: a row a writer without the key
// changed is unsigned). A prompt recorded itself keeps what its first
// record said.
const updateTop = `UPDATE prompts SET sha256 = ?, variant = ?, library = ?, library_short = ?, variant_hash = ?, version = ?, budget = ?,
	recorded = ?, signature = ?, label = ?, git_commit = ?, input = ?, max_tokens = ?, token_encoding = ? WHERE hash = ? AND variant = ''`

// updateTopRow runs updateTop in tx. The row is stamped with the record's
// own time, rec.when, never the time the row already holds: a row stored
// as embedded may have been written by anyone who can write to the
// database, with a time of their choosing, and with a key the signature
// covers the time. Of concurrent updates of the same row, the first sets
// its variant and the others find nothing to update.
func (r *record) updateTopRow(ctx context.Context, tx *sql.Tx, rebind func(string) string) error {
	sig := ""
	if r.key != nil {
		row := r.row(r.top, r.when)
		sig = signPrompt(r.key, &row, r.top.sums())
	}
	p := r.prov
	o := r.origin
	_, err := tx.ExecContext(ctx, rebind(updateTop), r.sha256, r.variant, p.Library, p.Short, p.Variant, p.Version, r.budget, r.when, sig,
		o.label, o.commit, o.input, o.maxTokens, o.tokens, r.top.hash)
	return err
}

// inTx runs f in a transaction of db and commits what it did, or rolls it
// back when it fails.
func inTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}
