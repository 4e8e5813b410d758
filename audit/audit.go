// Package audit keeps every rendered prompt, addressed by the SHA-256 of its
// text, with the ids it was rendered with and the prompts it embeds verbatim,
// so that a chain of nested delegations can be reconstructed from any link:
// the subagent prompt, its parent, the parent's parent, down to the root.
//
// The store is an embedded SQLite database in one local file; nothing runs
// beside it.
package audit

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

const schema = `
CREATE TABLE IF NOT EXISTS prompts (
	hash     TEXT PRIMARY KEY,       -- hex SHA-256 of text
	text     BLOB NOT NULL,
	variant  TEXT NOT NULL DEFAULT '', -- empty for a prompt known only as a parent
	ids      TEXT NOT NULL DEFAULT '{}',
	recorded TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS embeds (
	child  TEXT NOT NULL REFERENCES prompts(hash),
	parent TEXT NOT NULL REFERENCES prompts(hash),
	region TEXT NOT NULL,
	PRIMARY KEY (child, region)
);
CREATE TABLE IF NOT EXISTS ids (
	name  TEXT NOT NULL,
	value TEXT NOT NULL,
	hash  TEXT NOT NULL REFERENCES prompts(hash),
	PRIMARY KEY (name, value, hash)
);
CREATE INDEX IF NOT EXISTS ids_value ON ids(value);
`

// Store is an audit database. It is safe for concurrent use.
type Store struct {
	db  *sql.DB
	now func() time.Time // the time a record is made: audit metadata, never prompt text
}

// Open opens or creates the database file at path.
func Open(path string) (*Store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err == nil {
		_, err = db.Exec(schema)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, &Error{Path: path, Reason: "cannot open the audit database: " + err.Error(), Err: err,
			Hints: []string{"check that the folder exists and is writable, and that the file is an audit database"}}
	}
	return &Store{db: db, now: time.Now}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Hash is the address of a prompt: the hex SHA-256 of its bytes.
func Hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Record stores a rendered prompt with its ids, and every prompt it embeds
// verbatim, level by level, with the link from each to the one it embeds.
// It returns the prompt's hash.
func (s *Store) Record(v *engine.Variant, res *engine.Result) (string, error) {
	tx, err := s.db.Begin()
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	when := s.now().UTC().Format(time.RFC3339)
	ids, _ := json.Marshal(res.IDs)
	hash := Hash(res.Text)
	if _, err := tx.Exec(`INSERT INTO prompts(hash, text, variant, ids, recorded) VALUES(?, ?, ?, ?, ?)
		ON CONFLICT(hash) DO UPDATE SET variant = excluded.variant, ids = excluded.ids`,
		hash, res.Text, res.Variant, string(ids), when); err != nil {
		return "", err
	}
	for name, value := range res.IDs {
		if _, err := tx.Exec(`INSERT OR IGNORE INTO ids(name, value, hash) VALUES(?, ?, ?)`, name, value, hash); err != nil {
			return "", err
		}
	}
	for _, r := range res.Regions {
		vb, _ := v.Verbatim(r.Name)
		markers := verbatim.Of(vb)
		child, text := hash, res.Text[r.Start:r.End]
		// Walk down the nesting: each embedded prompt may embed another.
		for {
			parent := Hash(text)
			if _, err := tx.Exec(`INSERT OR IGNORE INTO prompts(hash, text, recorded) VALUES(?, ?, ?)`, parent, text, when); err != nil {
				return "", err
			}
			if _, err := tx.Exec(`INSERT OR REPLACE INTO embeds(child, parent, region) VALUES(?, ?, ?)`, child, parent, r.Name); err != nil {
				return "", err
			}
			inner, err := markers.Extract(text, 1)
			if err != nil {
				break // the root of the chain holds no embedded prompt
			}
			child, text = parent, inner
		}
	}
	return hash, tx.Commit()
}

// Entry is one stored prompt.
type Entry struct {
	Hash     string            `json:"hash"`
	Variant  string            `json:"variant,omitempty"`
	IDs      map[string]string `json:"ids,omitempty"`
	Recorded string            `json:"recorded"`
	Text     string            `json:"text,omitempty"`
}

// ErrNotFound is wrapped by the error for a hash or id the store does not hold.
var ErrNotFound = errors.New("not in the audit store")

// ErrAmbiguous is wrapped by the error for a key that names several prompts.
var ErrAmbiguous = errors.New("several prompts match")

// Error is a problem with the audit store. Path names the database when it
// could not be opened; Key the hash or id asked for when it names no prompt,
// or several.
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
	if subject == "" {
		return e.Reason
	}
	return subject + ": " + e.Reason
}

func (e *Error) Unwrap() error { return e.Err }

// Resolve finds a prompt by its hash, a unique prefix of it, or an id value
// such as a delegation_id.
func (s *Store) Resolve(key string) (string, error) {
	var hashes []string
	// A prefix of a hash is compared as text: LIKE would read % and _ in the key as wildcards.
	rows, err := s.db.Query(`SELECT hash FROM ids WHERE value = ?1
		UNION SELECT hash FROM prompts WHERE ?1 <> '' AND substr(hash, 1, length(?1)) = ?1 LIMIT 3`, key)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		rows.Scan(&h)
		hashes = append(hashes, h)
	}
	switch len(hashes) {
	case 0:
		return "", &Error{Key: key, Reason: "no prompt with this hash or id in the audit store", Err: ErrNotFound}
	case 1:
		return hashes[0], nil
	}
	return "", &Error{Key: key, Reason: "several prompts match; give more of the hash", Err: ErrAmbiguous}
}

// Get returns one prompt with its text.
func (s *Store) Get(hash string) (Entry, error) {
	var e Entry
	var ids string
	err := s.db.QueryRow(`SELECT hash, variant, ids, recorded, text FROM prompts WHERE hash = ?`, hash).
		Scan(&e.Hash, &e.Variant, &ids, &e.Recorded, &e.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return e, &Error{Key: hash, Reason: "no prompt with this hash in the audit store", Err: ErrNotFound}
	}
	if err != nil {
		return e, err
	}
	if ids != "" && ids != "null" {
		json.Unmarshal([]byte(ids), &e.IDs)
	}
	return e, nil
}

// Chain returns the prompt at hash followed by the prompt it embeds, and so
// on to the root: a delegation chain from the subagent up.
func (s *Store) Chain(hash string) ([]Entry, error) {
	var chain []Entry
	seen := map[string]bool{}
	for hash != "" && !seen[hash] {
		seen[hash] = true
		e, err := s.Get(hash)
		if err != nil {
			return nil, err
		}
		chain = append(chain, e)
		var next string
		err = s.db.QueryRow(`SELECT parent FROM embeds WHERE child = ? ORDER BY region LIMIT 1`, hash).Scan(&next)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		hash = next
	}
	return chain, nil
}

func (e Entry) String() string {
	return fmt.Sprintf("%s %s %v", e.Hash[:12], e.Variant, e.IDs)
}
