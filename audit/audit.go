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

	"github.com/promptsmith/promptsmith/engine"
)

// Store is an audit store. It is safe for concurrent use, and any number of
// Stores, in one process or many, may share one database.
type Store struct {
	db       *sql.DB
	be       backend
	where    string // the file, or the URL without its password: what errors name
	readOnly bool
	// budget says that the schema has prompts.budget (budgetVersion). Only a
	// read-only store of an earlier version lacks it; it reads every
	// budget as none.
	budget bool
	now    func() time.Time // the time a record is made: audit metadata, never prompt text
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
	// write stores a record in one transaction: idempotent, and safe
	// against concurrent writers of the same prompts.
	write(ctx context.Context, db *sql.DB, rec *record) error
	// reader returns what the queries of one read run on, and a function
	// to call when they are done.
	reader(ctx context.Context, db *sql.DB) (querier, func(), error)
}

// Open opens the audit store at target for recording and reading,
// creating it and bringing its schema up to date as needed. target is a
// file path, for an embedded SQLite database, or a postgres:// (or
// postgresql://) URL.
func Open(target string) (*Store, error) { return open(target, false) }

// OpenReadOnly opens an existing audit store for reading only: it creates
// nothing, changes nothing, and fails, naming target, when there is no
// audit store there. A store an earlier version of this package wrote is
// read as it is, without upgrading it, when what it lacks reads as empty
// (budget reports, which it never recorded); otherwise the error says to
// open it with Open once.
func OpenReadOnly(target string) (*Store, error) { return open(target, true) }

// IsURL reports whether target names a PostgreSQL database rather than a file.
func IsURL(target string) bool {
	t := strings.ToLower(target)
	return strings.HasPrefix(t, "postgres://") || strings.HasPrefix(t, "postgresql://")
}

func open(target string, readOnly bool) (*Store, error) {
	var (
		db    *sql.DB
		be    backend
		where string
		err   error
	)
	if IsURL(target) {
		db, be, where, err = openPostgres(target, readOnly)
	} else {
		db, be, where, err = openSQLite(target, readOnly)
	}
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
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
		var ae *Error
		if errors.As(err, &ae) {
			if ae.Path == "" {
				ae.Path = where
			}
			return nil, err
		}
		return nil, &Error{Path: where, Reason: "cannot open the audit store: " + err.Error(), Err: err, Hints: openHints(target)}
	}
	return &Store{db: db, be: be, where: where, readOnly: readOnly, budget: applied[budgetVersion], now: time.Now}, nil
}

func openHints(target string) []string {
	if IsURL(target) {
		return []string{"check that PostgreSQL answers at this address and that the database exists and lets this user create tables; the form is postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable"}
	}
	return []string{"check that the folder exists and is writable, and that the file is an audit database"}
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

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
	sha256  string
	variant string
	prov    engine.Provenance
	ids     [][2]string // name, value; sorted
	budget  string      // the JSON of res.Budget; '' for a render without one
	when    string
}

// Record stores a rendered prompt with its ids, provenance and budget
// report (res.Budget, for a render fitted to a number of tokens), and
// every prompt it embeds verbatim, to any depth, each as its own bytes and
// references (see the package comment). It returns the prompt's address.
// Recording the same prompt again, from this Store or another on the same
// database, stores nothing new: its ids are added, and its variant,
// provenance and budget stay what its first record said.
//
// Cost: O(n) in the length n of res.Text, however deep its regions nest:
// the text is scanned and hashed once before the transaction starts, and
// the transaction inserts one row per prompt and per segment, about n bytes
// in all.
func (s *Store) Record(v *engine.Variant, res *engine.Result) (string, error) {
	if s.readOnly {
		return "", &Error{Path: s.where, Reason: "the audit store was opened read-only; nothing was recorded"}
	}
	top, nodes, err := split(v, res)
	if err != nil {
		return "", &Error{Path: s.where, Reason: "cannot record the prompt: " + err.Error(), Err: err}
	}
	byHash := make(map[string]*node, len(nodes))
	for _, n := range nodes {
		byHash[n.hash] = n
	}
	rec := &record{
		top:     top,
		nodes:   slices.SortedFunc(maps.Values(byHash), func(a, b *node) int { return strings.Compare(a.hash, b.hash) }),
		sha256:  Hash(res.Text),
		variant: res.Variant,
		prov:    res.Provenance,
		when:    s.now().UTC().Format(time.RFC3339),
	}
	for _, name := range slices.Sorted(maps.Keys(res.IDs)) {
		rec.ids = append(rec.ids, [2]string{name, res.IDs[name]})
	}
	if res.Budget != nil {
		b, err := json.Marshal(res.Budget)
		if err != nil {
			return "", &Error{Path: s.where, Reason: "cannot record the prompt's budget report: " + err.Error(), Err: err}
		}
		rec.budget = string(b)
	}
	if err := s.be.write(context.Background(), s.db, rec); err != nil {
		return "", &Error{Path: s.where, Reason: "cannot record the prompt: " + err.Error(), Err: err}
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
	Text   string               `json:"text,omitempty"`
}

// ErrNotFound is wrapped by the error for a hash or id the store does not hold.
var ErrNotFound = errors.New("not in the audit store")

// ErrAmbiguous is wrapped by the error for a key that names several prompts.
var ErrAmbiguous = errors.New("several prompts match")

// ErrNoStore is wrapped by the error of OpenReadOnly when there is no audit
// store at the target.
var ErrNoStore = errors.New("no audit store")

// Error is a problem with the audit store. Path names the database (a file,
// or a URL without its password) when it could not be opened or written;
// Key the hash or id asked for when it names no prompt, or several.
type Error struct {
	Path   string   `json:"path,omitempty"`
	Key    string   `json:"key,omitempty"`
	Reason string   `json:"reason"`
	Hints  []string `json:"hints,omitempty"`
	Err    error    `json:"-"`
}

func (e *Error) Error() string {
	subject := e.Path
	if e.Key != "" {
		subject = e.Key
	}
	if subject == "" || strings.Contains(e.Reason, subject) {
		return e.Reason
	}
	return subject + ": " + e.Reason
}

func (e *Error) Unwrap() error { return e.Err }

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

// Resolve finds a prompt by its address, the SHA-256 of its text (for a
// prompt recorded itself, or one that embeds nothing), a unique prefix of
// either, or an id value such as a delegation_id. A prefix is literal text:
// it is compared as a range of hex strings, never as a pattern.
func (s *Store) Resolve(key string) (string, error) {
	q := `SELECT hash FROM ids WHERE value = ?`
	args := []any{key}
	if prefix := strings.ToLower(key); isHex(prefix) {
		// Every hash that starts with prefix sorts in [prefix, prefix+"g"):
		// hex digits all sort before g. The range reads the index.
		q += ` UNION SELECT hash FROM prompts WHERE hash >= ? AND hash < ?
			UNION SELECT hash FROM prompts WHERE sha256 >= ? AND sha256 < ?`
		args = append(args, prefix, prefix+"g", prefix, prefix+"g")
	}
	rows, err := s.db.Query(s.be.rebind(q+` LIMIT 2`), args...)
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
		return "", &Error{Key: key, Reason: "no prompt with this hash or id in the audit store", Err: ErrNotFound,
			Hints: []string{"give a delegation_id, or a prompt's hash (or SHA-256) or a prefix of it, as render audit chain lists them"}}
	case 1:
		return hashes[0], nil
	}
	return "", &Error{Key: key, Reason: "several prompts match; give more of the hash", Err: ErrAmbiguous}
}

func (s *Store) readError(err error) error {
	return &Error{Path: s.where, Reason: "cannot read the audit store: " + err.Error(), Err: err}
}

func notFound(hash string) error {
	return &Error{Key: hash, Reason: "no prompt with this hash in the audit store", Err: ErrNotFound,
		Hints: []string{"find the hash with render audit chain, or give a delegation_id"}}
}

// Get returns one prompt with its text. Cost: O(length of the text).
func (s *Store) Get(hash string) (Entry, error) {
	t, err := s.load(hash, true)
	if err != nil {
		return Entry{}, err
	}
	e := t.meta[hash]
	if e.Text, err = assemble(t.parts, hash, nil); err != nil {
		return Entry{}, s.readError(err)
	}
	e.SHA256 = Hash(e.Text)
	return *e, nil
}

// Chain returns the prompt at hash followed by the prompt it embeds, and so
// on to the root: a delegation chain from the subagent up, each link with
// its text. Cost: the total length of the texts it returns; Links gives the
// same chain without them.
func (s *Store) Chain(hash string) ([]Entry, error) {
	t, err := s.load(hash, true)
	if err != nil {
		return nil, err
	}
	links := t.chain(hash)
	texts := map[string]string{}
	for i := len(links) - 1; i >= 0; i-- { // from the root up: each text reuses the one it embeds
		h := links[i].Hash
		if links[i].Text, err = assemble(t.parts, h, texts); err != nil {
			return nil, s.readError(err)
		}
		texts[h] = links[i].Text
		links[i].SHA256 = Hash(links[i].Text)
	}
	return links, nil
}

// Links returns the chain that Chain returns, without the texts: each
// prompt's metadata and size. Cost: O(number of stored prompts in the
// chain), whatever their size.
func (s *Store) Links(hash string) ([]Entry, error) {
	t, err := s.load(hash, false)
	if err != nil {
		return nil, err
	}
	return t.chain(hash), nil
}

// tree is the prompt at a hash and every prompt it embeds, as loaded.
type tree struct {
	parts map[string][]part
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

// load reads the prompt at hash and every prompt it embeds: three queries
// however deep the nesting, with or without the bytes.
func (s *Store) load(hash string, withBytes bool) (*tree, error) {
	ctx := context.Background()
	db, done, err := s.be.reader(ctx, s.db)
	if err != nil {
		return nil, s.readError(err)
	}
	defer done()
	t := &tree{parts: map[string][]part{}, meta: map[string]*Entry{}}
	budgetCol := "budget"
	if !s.budget {
		budgetCol = "''"
	}
	rows, err := db.QueryContext(ctx, s.be.rebind(s.subtree()+`SELECT hash, sha256, size, variant, library, library_short, variant_hash, version, recorded, `+budgetCol+`
		FROM prompts WHERE hash IN (SELECT h FROM tree)`), hash)
	if err != nil {
		return nil, s.readError(err)
	}
	for rows.Next() {
		e := &Entry{}
		p := &e.Provenance
		var budget string
		if err := rows.Scan(&e.Hash, &e.SHA256, &e.Size, &e.Variant, &p.Library, &p.Short, &p.Variant, &p.Version, &e.Recorded, &budget); err != nil {
			rows.Close()
			return nil, s.readError(err)
		}
		if budget != "" {
			e.Budget = &engine.BudgetReport{}
			if err := json.Unmarshal([]byte(budget), e.Budget); err != nil {
				rows.Close()
				return nil, s.readError(fmt.Errorf("prompt %s: its budget is not a budget report: %w", e.Hash, err))
			}
		}
		t.meta[e.Hash] = e
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.readError(err)
	}
	if t.meta[hash] == nil {
		return nil, notFound(hash)
	}

	bytesCol := "length(p.bytes), ''"
	if withBytes {
		bytesCol = "length(p.bytes), p.bytes"
	}
	rows, err = db.QueryContext(ctx, s.be.rebind(s.subtree()+`SELECT p.hash, p.seq, `+bytesCol+`, p.child, p.region
		FROM parts p WHERE p.hash IN (SELECT h FROM tree) ORDER BY p.hash, p.seq`), hash)
	if err != nil {
		return nil, s.readError(err)
	}
	for rows.Next() {
		var h string
		var p part
		var b []byte
		if err := rows.Scan(&h, &p.seq, &p.size, &b, &p.child, &p.region); err != nil {
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

	rows, err = db.QueryContext(ctx, s.be.rebind(s.subtree()+`SELECT hash, name, value FROM ids WHERE hash IN (SELECT h FROM tree) ORDER BY hash, name, value`), hash)
	if err != nil {
		return nil, s.readError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var h, name, value string
		if err := rows.Scan(&h, &name, &value); err != nil {
			return nil, s.readError(err)
		}
		if e := t.meta[h]; e != nil {
			if e.IDs == nil {
				e.IDs = map[string]string{}
			}
			e.IDs[name] = value
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
}

func (r *record) meta(n *node) meta {
	if n == r.top {
		return meta{sha256: r.sha256, variant: r.variant, budget: r.budget, prov: r.prov}
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

// updateTop gives a prompt stored before only as embedded in another the
// metadata of its own record. A prompt recorded itself keeps what its first
// record said.
const updateTop = `UPDATE prompts SET sha256 = ?, variant = ?, library = ?, library_short = ?, variant_hash = ?, version = ?, budget = ?
	WHERE hash = ? AND variant = ''`

func (r *record) updateArgs() []any {
	p := r.prov
	return []any{r.sha256, r.variant, p.Library, p.Short, p.Variant, p.Version, r.budget, r.top.hash}
}
