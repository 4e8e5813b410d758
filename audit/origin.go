package audit

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"hash"
	"strconv"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
)

// Origin is what a prompt was made from beyond its library: the label and
// commit a server with labels served it from, and, for a server that
// keeps inputs (render serve --audit-inputs), the input it was rendered
// from and the budget it was rendered under, so that it can be rendered
// again (render audit replay). Like the rest of a record's metadata, it
// is the first record's: a prompt recorded again keeps it.
type Origin struct {
	Label  string
	Commit string
	// Input is the input as canonical JSON: the values the render read,
	// objects in their input order. It is stored once, at the SHA-256 of
	// its bytes, however many prompts name it. nil keeps none.
	Input []byte
	// MaxTokens and Tokens are the render's ?max_tokens and encoding
	// (0 and "" for none), kept with an input.
	MaxTokens int
	Tokens    string
}

// origin is an Origin as a prompts row holds it.
type origin struct {
	label, commit, input string
	maxTokens            int64
	tokens               string
}

// row is the origin a record writes, and the input bytes it stores.
func (o Origin) row() (origin, []byte) {
	out := origin{label: o.Label, commit: o.Commit}
	if o.Input == nil {
		return out, nil
	}
	out.input, out.maxTokens, out.tokens = Hash(string(o.Input)), int64(o.MaxTokens), o.Tokens
	return out, o.Input
}

// empty says whether the row has no origin: a row of a store that kept
// none, or one written before originVersion.
func (o origin) empty() bool { return o == origin{} }

// originSigField marks the origin in a prompt's signed encoding: a row
// without origin encodes as before it existed, so its signature, made
// before, still verifies, while a row with one cannot lose or change it
// without its signature failing.
const originSigField = "origin v1"

// signOrigin adds the origin to a prompt's signed encoding, after its
// parts, when it has one.
func signOrigin(m hash.Hash, o origin) {
	if o.empty() {
		return
	}
	for _, f := range []string{originSigField, o.label, o.commit, o.input, strconv.FormatInt(o.maxTokens, 10), o.tokens} {
		field(m, f)
	}
}

// originColumns selects the origin columns of a promptRow, from the table
// with the given prefix; a read-only store of an earlier version reads
// them as none.
func (s *Store) originColumns(prefix string) string {
	if !s.origin {
		return "'', '', '', 0, ''"
	}
	return prefix + "label, " + prefix + "git_commit, " + prefix + "input, " + prefix + "max_tokens, " + prefix + "token_encoding"
}

// writeInput stores a record's input, once for all the records that name
// it: both databases take the same statement.
func writeInput(ctx context.Context, tx *sql.Tx, rebind func(string) string, rec *record) error {
	if rec.input == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, rebind(`INSERT INTO inputs(hash, data, recorded) VALUES(?, ?, ?) ON CONFLICT DO NOTHING`),
		rec.origin.input, rec.input, rec.when)
	return err
}

// ErrNoInput is wrapped by the error of Input for a prompt recorded
// without its input.
var ErrNoInput = errors.New("no input recorded")

// Input returns the input stored at its address (Entry.Input), once its
// bytes hash to it: an input changed in the database is an integrity
// error, never served as the one recorded.
func (s *Store) Input(ctx context.Context, address string) ([]byte, error) {
	if address == "" || !s.origin {
		return nil, &engine.Error{Kind: engine.KindInput, Path: s.where, Reason: "the prompt was recorded without its input", Err: ErrNoInput,
			Hints: []string{"inputs are kept by render serve --audit-inputs, from when it is given on"}}
	}
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	var data []byte
	err := s.db.QueryRowContext(ctx, s.be.rebind(`SELECT data FROM inputs WHERE hash = ?`), address).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &engine.Error{Kind: engine.KindIntegrity, Path: s.where, Key: address, Reason: "the prompt names an input the store does not hold",
			Err: ErrIntegrity}
	}
	if err != nil {
		return nil, s.readError(err)
	}
	if Hash(string(data)) != address {
		return nil, s.integrityError([]Problem{{Table: "inputs", Hash: address, Reason: "its data does not hash to its address: it changed after it was recorded"}})
	}
	return bytes.Clone(data), nil
}

// verifyInputs is Verify's check of the inputs: each one's bytes hash to
// its address, and each prompt that names an input names one the store
// holds. A store without the inputs table has none to check.
func (s *Store) verifyInputs(ctx context.Context, since string, add func(...Problem)) error {
	if !s.origin {
		return nil
	}
	db, done, err := s.be.reader(ctx, s.db)
	if err != nil {
		return err
	}
	defer done()
	where, args := sinceClause("", since)
	rows, err := db.QueryContext(ctx, s.be.rebind(`SELECT hash, data FROM inputs`+where+` ORDER BY hash`), args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var h string
		var data []byte
		if err := rows.Scan(&h, &data); err != nil {
			rows.Close()
			return err
		}
		if Hash(string(data)) != h {
			add(Problem{Table: "inputs", Hash: h, Reason: "its data does not hash to its address: it changed after it was recorded"})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	where, args = sinceClause("pr.", since)
	if where == "" {
		where = " WHERE"
	} else {
		where += " AND"
	}
	rows, err = db.QueryContext(ctx, s.be.rebind(`SELECT pr.hash FROM prompts pr LEFT JOIN inputs i ON i.hash = pr.input`+where+`
		pr.input <> '' AND i.hash IS NULL ORDER BY pr.hash`), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return err
		}
		add(Problem{Table: "prompts", Hash: h, Reason: "names an input the store does not hold"})
	}
	return rows.Err()
}

// CanonicalInput is a render's input as the store keeps it: the values
// it decodes to, as JSON with each object's keys in input order
// (templates range over them in that order), so that the same input
// given as JSON or YAML, spaced any way, is stored once. nil when it does
// not decode (it rendered already, so it does), and none is kept.
func CanonicalInput(in engine.Input) []byte {
	doc, err := input.Decode(input.Input{Name: in.Name, Data: in.Data}, nil)
	if err != nil {
		return nil
	}
	defer doc.Release()
	return input.AppendJSON(nil, doc.Root, doc.Order(), false)
}
