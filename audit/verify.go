package audit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// Verification. Every read checks what it serves against the addresses it
// was stored under, and against signatures when the store has a key, so
// that bytes changed in the database behind the store's back are refused
// rather than served as recorded. Verify checks every row.

// ErrIntegrity is wrapped by the error of a read that finds a row of the
// prompt it reads altered: bytes that do not hash to their address, a
// child pointer redirected, a column that contradicts the text, or, with a
// key, a signature that is missing or wrong.
var ErrIntegrity = errors.New("the audit store fails verification")

// Problem is one row, or the parts of one prompt, that fails verification.
// It names the row and says what does not match; it never holds a
// prompt's bytes.
type Problem struct {
	Table  string `json:"table"`           // prompts, parts or ids
	Hash   string `json:"hash"`            // the address the row is stored under
	Seq    *int   `json:"seq,omitempty"`   // parts: the part at fault, when it is one part
	Name   string `json:"name,omitempty"`  // ids: the id's name
	Value  string `json:"value,omitempty"` // ids: its value
	Reason string `json:"reason"`
}

// String is the problem on one line: the table, the row's key, and what is
// wrong. Anything read from the database that is not a plain word or an
// address is quoted (and cut short), so a row cannot print lines or
// terminal escapes of its own.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Table)
	if p.Table == "ids" {
		b.WriteString(" name=" + show(p.Name) + " value=" + show(p.Value))
	}
	b.WriteString(" hash=" + show(p.Hash))
	if p.Seq != nil {
		b.WriteString(" seq=" + strconv.Itoa(*p.Seq))
	}
	b.WriteString(": " + p.Reason)
	return b.String()
}

// asError is the problem as one of the rows an integrity error lists: the
// table as its Path, the row's key as its Key.
func (p Problem) asError() *engine.Error {
	key := "hash=" + show(p.Hash)
	switch {
	case p.Table == "ids":
		key = "name=" + show(p.Name) + " value=" + show(p.Value) + " " + key
	case p.Seq != nil:
		key += " seq=" + strconv.Itoa(*p.Seq)
	}
	return &engine.Error{Kind: engine.KindIntegrity, Path: p.Table, Key: key, Reason: p.Reason}
}

// show returns s as it is when it is a plain word (an address, an id such
// as dlg-5f1c…), and otherwise quoted, at most 64 bytes of it.
func show(s string) string {
	plain := s != "" && len(s) <= 128
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:/+@", c) >= 0
	}
	if plain {
		return s
	}
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return strconv.Quote(s)
}

func tableRank(t string) int {
	switch t {
	case "prompts":
		return 0
	case "parts":
		return 1
	}
	return 2
}

// sortProblems orders problems by the address they concern, then by table
// and row, so that every report of one store reads the same.
func sortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int {
		seq := func(p Problem) int {
			if p.Seq == nil {
				return -1
			}
			return *p.Seq
		}
		return cmp.Or(strings.Compare(a.Hash, b.Hash), cmp.Compare(tableRank(a.Table), tableRank(b.Table)),
			cmp.Compare(seq(a), seq(b)), strings.Compare(a.Name, b.Name), strings.Compare(a.Value, b.Value),
			strings.Compare(a.Reason, b.Reason))
	})
}

// isAddress reports whether s is an address as the store writes them: 64
// lowercase hex digits.
func isAddress(s string) bool {
	return len(s) == 64 && isHex(s)
}

// checkPrompt verifies one prompts row against its parts (in seq order):
// the parts are numbered 0, 1, …, every one but the last embeds a prompt,
// by its address; the parts' bytes and children hash to the row's address;
// the row's size is the length of the text they make (childSize gives the
// size of a prompt embedded, false when it has no row); a prompt that
// embeds nothing has the SHA-256 its row says; its budget column, if it
// has one, decodes as a budget report; and, with a key, the row's
// signature verifies. Once the parts fail, what follows from them is not
// reported again: one problem per thing altered.
func checkPrompt(r *promptRow, parts []part, childSize func(hash string) (int64, bool), key []byte) []Problem {
	at := func(table string, seq *int, format string, args ...any) Problem {
		return Problem{Table: table, Hash: r.hash, Seq: seq, Reason: fmt.Sprintf(format, args...)}
	}
	if len(parts) == 0 {
		return []Problem{at("parts", nil, "none: the prompt's text is missing")}
	}
	var ps []Problem
	segs, kids := make([]string, len(parts)), make([]string, 0, len(parts)-1)
	size, sizeKnown := int64(0), true
	for i, p := range parts {
		seq := p.seq
		segs[i] = p.bytes
		size += int64(len(p.bytes))
		switch last := i == len(parts)-1; {
		case p.seq != i:
			ps = append(ps, at("parts", &seq, "is part %d of the prompt: a part was removed or renumbered", i))
		case last && p.child != "":
			ps = append(ps, at("parts", &seq, "the last part embeds a prompt: a part after it was removed"))
		case !last && p.child == "":
			ps = append(ps, at("parts", &seq, "embeds no prompt, but every part before the last does: a child pointer was removed"))
		case !last && !isAddress(p.child):
			ps = append(ps, at("parts", &seq, "embeds %s, which is not an address", show(p.child)))
		case !last:
			kids = append(kids, p.child)
			n, ok := childSize(p.child)
			if !ok {
				ps = append(ps, at("parts", &seq, "embeds %s, which has no row in prompts", p.child))
			}
			size, sizeKnown = size+n, sizeKnown && ok
		}
	}
	if len(ps) > 0 {
		return ps
	}
	if got := address(segs, kids); got != r.hash {
		if len(kids) == 0 {
			return []Problem{at("parts", nil, "its part hashes to %s, not to this address: its bytes were changed", got)}
		}
		return []Problem{at("parts", nil, "its %d parts hash to %s, not to this address: their bytes or child pointers were changed", len(parts), got)}
	}
	switch {
	case !sizeKnown || size == r.size:
	case len(kids) == 0:
		ps = append(ps, at("prompts", nil, "size is %d, but its text is %d bytes", r.size, size))
	default: // true of it, or of a prompt it embeds, which is then reported too
		ps = append(ps, at("prompts", nil, "size is %d, but its own bytes and the sizes of the prompts it embeds, as their rows say, add up to %d", r.size, size))
	}
	if len(kids) == 0 {
		if p := sumProblem(r, Hash(segs[0])); p != nil {
			ps = append(ps, *p)
		}
	}
	if _, err := r.budgetReport(); err != nil {
		ps = append(ps, budgetProblem(r))
	}
	if key != nil {
		if p := signatureProblem(at("prompts", nil, ""), r.signature, signPrompt(key, r, sums(parts))); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}

// sumProblem compares the SHA-256 of a prompt's text with the one its row
// says, if it says one.
func sumProblem(r *promptRow, sum string) *Problem {
	if r.sha256 == "" || r.sha256 == sum {
		return nil
	}
	return &Problem{Table: "prompts", Hash: r.hash, Reason: fmt.Sprintf("sha256 is %s, but its text hashes to %s", show(r.sha256), sum)}
}

// budgetProblem is the problem of a row whose budget column does not
// decode as a budget report. What the column holds is not printed.
func budgetProblem(r *promptRow) Problem {
	return Problem{Table: "prompts", Hash: r.hash, Reason: "budget is not a budget report"}
}

// idRow is a row of ids.
type idRow struct{ name, value, hash, signature string }

func (id idRow) problem(key []byte) *Problem {
	return signatureProblem(Problem{Table: "ids", Hash: id.hash, Name: id.name, Value: id.value}, id.signature, signID(key, id.name, id.value, id.hash))
}

// check verifies every prompt of t and, with a key, the signatures of its
// ids. It returns the problems found, sorted.
func (t *tree) check(key []byte) []Problem {
	childSize := func(h string) (int64, bool) {
		if r := t.rows[h]; r != nil {
			return r.size, true
		}
		return 0, false
	}
	var ps []Problem
	for _, h := range slices.Sorted(maps.Keys(t.rows)) {
		ps = append(ps, checkPrompt(t.rows[h], t.parts[h], childSize, key)...)
	}
	if key != nil {
		for _, id := range t.ids {
			if p := id.problem(key); p != nil {
				ps = append(ps, *p)
			}
		}
	}
	sortProblems(ps)
	return ps
}

// integrityError is the error of a read that found problems.
func (s *Store) integrityError(ps []Problem) error {
	reason := "fails verification: " + ps[0].String()
	if n := len(ps) - 1; n == 1 {
		reason += " (and 1 more problem)"
	} else if n > 1 {
		reason += fmt.Sprintf(" (and %d more problems)", n)
	}
	also := make([]*engine.Error, len(ps))
	for i, p := range ps {
		also[i] = p.asError()
	}
	return &engine.Error{Kind: engine.KindIntegrity, Path: s.where, Reason: reason, Err: ErrIntegrity, Also: also,
		Hints: []string{"render audit verify lists every row of the store that fails verification; nothing that fails is served"}}
}

// hashWriter feeds what assemble writes to a hash.
type hashWriter struct{ h hash.Hash }

func (w hashWriter) WriteString(s string) (int, error) {
	writeString(w.h, s)
	return len(s), nil
}

// textSum is the SHA-256 of the text of the prompt at root, assembled
// into the hash rather than into memory.
func textSum(parts map[string][]part, root string) (string, error) {
	h := sha256.New()
	if err := assembleTo(hashWriter{h}, parts, root, nil); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Report is what Verify found.
type Report struct {
	Prompts int64 `json:"prompts"` // rows of prompts read
	Parts   int64 `json:"parts"`   // rows of parts read
	IDs     int64 `json:"ids"`     // rows of ids read
	// Signatures says that signatures were checked: the store has a key.
	Signatures bool `json:"signatures"`
	// Signed counts the rows of prompts and ids that carry a signature,
	// checked or not.
	Signed   int64     `json:"signed"`
	Problems []Problem `json:"problems"` // sorted; empty, never nil, when the store verifies
}

// Verify checks every row of the store: that each prompt's parts hash to
// its address, that each prompt it embeds has a row, that its size and
// SHA-256 are those of its text, that no parts or ids stand without a
// prompt, and, when the store has a key, that every row of prompts and ids
// has a signature that verifies. It returns what it read and every
// problem it found; the error is for a store it could not read.
//
// Cost: one pass over the store, with one prompt's parts in memory at a
// time (and the addresses of the prompts left to check), then the text of
// every prompt recorded itself that embeds another, to check its SHA-256,
// read a batch of prompts' trees at a time.
func (s *Store) Verify(ctx context.Context) (Report, error) { return s.verify(ctx, "") }

// VerifySince is Verify of the rows recorded since a time: the prompts
// recorded (or first stored as embedded) then, their parts and ids, the
// prompts they embed as far as their text needs, and the inputs recorded
// then. It reads what is new, not the whole store: a check to run after
// each day, with Verify now and then for what only a whole pass finds
// (parts and ids whose prompt is gone).
func (s *Store) VerifySince(ctx context.Context, since time.Time) (Report, error) {
	return s.verify(ctx, since.UTC().Format(time.RFC3339))
}

// verify checks the rows recorded at or after since ("" for every row).
func (s *Store) verify(ctx context.Context, since string) (Report, error) {
	rep := Report{Signatures: s.key != nil, Problems: []Problem{}}
	seen := map[string]bool{}
	add := func(ps ...Problem) {
		for _, p := range ps {
			if k := p.String(); !seen[k] {
				seen[k] = true
				rep.Problems = append(rep.Problems, p)
			}
		}
	}
	whole, bad, err := s.verifyRows(ctx, since, &rep, add)
	if err != nil {
		return Report{}, s.readError(err)
	}
	if err := s.verifyInputs(ctx, since, add); err != nil {
		return Report{}, s.readError(err)
	}
	if err := s.verifyWhole(ctx, whole, bad, add); err != nil {
		return Report{}, s.readError(err)
	}
	sortProblems(rep.Problems)
	return rep, nil
}

// wholeBatch is the number of prompts whose trees one query reads to
// check their texts' SHA-256.
const wholeBatch = 64

// verifyWhole checks the SHA-256 of the whole text of each prompt in
// whole (a text that embeds another, assembled) whose rows all verified:
// the parts of a batch of prompts' trees in one query.
func (s *Store) verifyWhole(ctx context.Context, whole []promptRow, bad map[string]bool, add func(...Problem)) error {
	for len(whole) > 0 {
		batch := whole[:min(len(whole), wholeBatch)]
		whole = whole[len(batch):]
		parts, err := s.treeParts(ctx, batch)
		if err != nil {
			return err
		}
		for i := range batch {
			r := &batch[i]
			if touches(parts, r.hash, bad) {
				continue // a prompt it embeds is reported already
			}
			sum, err := textSum(parts, r.hash)
			if err != nil {
				add(Problem{Table: "prompts", Hash: r.hash, Reason: "its text cannot be assembled: " + err.Error()})
				continue
			}
			if p := sumProblem(r, sum); p != nil {
				add(*p)
			}
		}
	}
	return nil
}

// treeParts reads the parts of the prompts of roots and of every prompt
// they embed, to any depth.
func (s *Store) treeParts(ctx context.Context, roots []promptRow) (map[string][]part, error) {
	db, done, err := s.be.reader(ctx, s.db)
	if err != nil {
		return nil, err
	}
	defer done()
	args := make([]any, len(roots))
	for i, r := range roots {
		args[i] = r.hash
	}
	q := `WITH RECURSIVE tree(h) AS (
		SELECT hash FROM prompts WHERE hash IN (?` + strings.Repeat(", ?", len(roots)-1) + `)
		UNION SELECT p.child FROM parts p JOIN tree ON p.hash = tree.h WHERE p.child <> ''
	) SELECT p.hash, p.seq, p.bytes, p.child, p.region FROM parts p WHERE p.hash IN (SELECT h FROM tree) ORDER BY p.hash, p.seq`
	rows, err := db.QueryContext(ctx, s.be.rebind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parts := map[string][]part{}
	for rows.Next() {
		var (
			h string
			p part
			b []byte
		)
		if err := rows.Scan(&h, &p.seq, &b, &p.child, &p.region); err != nil {
			return nil, err
		}
		p.bytes = string(b)
		parts[h] = append(parts[h], p)
	}
	return parts, rows.Err()
}

// touches reports whether the tree of root holds a prompt in bad.
func touches(parts map[string][]part, root string, bad map[string]bool) bool {
	seen := map[string]bool{}
	var walk func(h string) bool
	walk = func(h string) bool {
		if bad[h] {
			return true
		}
		if seen[h] {
			return false
		}
		seen[h] = true
		for _, p := range parts[h] {
			if p.child != "" && walk(p.child) {
				return true
			}
		}
		return false
	}
	return walk(root)
}

// verifyRows reads every row once, in one snapshot where the database
// gives one: each prompt with its parts and the size of each prompt they
// embed, the parts without a prompt, the ids. It returns the prompts that
// embed others and say the SHA-256 of their text, whose text is left to
// check, and the addresses that failed.
func (s *Store) verifyRows(ctx context.Context, since string, rep *Report, add func(...Problem)) (whole []promptRow, bad map[string]bool, err error) {
	db, done, err := s.be.reader(ctx, s.db)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	bad = map[string]bool{}
	if whole, err = s.verifyPrompts(ctx, db, since, rep, add, bad); err != nil {
		return nil, nil, err
	}
	if since == "" { // parts without a prompt have no time: a whole pass finds them
		if err := verifyOrphanParts(ctx, db, rep, add, bad); err != nil {
			return nil, nil, err
		}
	}
	if err := s.verifyIDs(ctx, db, since, rep, add); err != nil {
		return nil, nil, err
	}
	return whole, bad, nil
}

// verifyPrompts checks each prompt with its parts (checkPrompt), marking
// those that fail in bad, and returns those made of several parts that
// have a SHA-256 to check the whole text against.
func (s *Store) verifyPrompts(ctx context.Context, db querier, since string, rep *Report, add func(...Problem), bad map[string]bool) (whole []promptRow, err error) {
	where, args := sinceClause("pr.", since)
	rows, err := db.QueryContext(ctx, s.be.rebind(`SELECT `+s.promptColumns("pr.")+`, pa.seq, pa.bytes, pa.child, pa.region, c.size
		FROM prompts pr LEFT JOIN parts pa ON pa.hash = pr.hash LEFT JOIN prompts c ON c.hash = pa.child`+where+`
		ORDER BY pr.hash, pa.seq`), args...)
	if err != nil {
		return nil, err
	}
	var (
		cur      *promptRow
		parts    []part
		children = map[string]int64{}
	)
	flush := func() {
		if cur == nil {
			return
		}
		ps := checkPrompt(cur, parts, func(h string) (int64, bool) { n, ok := children[h]; return n, ok }, s.key)
		add(ps...)
		if len(ps) > 0 {
			bad[cur.hash] = true
		} else if cur.sha256 != "" && len(parts) > 1 {
			whole = append(whole, promptRow{hash: cur.hash, sha256: cur.sha256})
		}
		cur, parts = nil, parts[:0]
		clear(children)
	}
	for rows.Next() {
		var (
			r         promptRow
			seq       sql.NullInt64
			b         []byte
			child     sql.NullString
			region    sql.NullString
			childSize sql.NullInt64
		)
		if err := rows.Scan(append(r.fields(), &seq, &b, &child, &region, &childSize)...); err != nil {
			rows.Close()
			return nil, err
		}
		if cur == nil || r.hash != cur.hash {
			flush()
			cur = &r
			rep.Prompts++
			if r.signature != "" {
				rep.Signed++
			}
		}
		if !seq.Valid {
			continue // a prompt without parts
		}
		rep.Parts++
		parts = append(parts, part{seq: int(seq.Int64), bytes: string(b), child: child.String, region: region.String})
		if childSize.Valid {
			children[child.String] = childSize.Int64
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	flush()

	return whole, nil
}

// verifyOrphanParts reports parts whose prompt has no row, marking them
// in bad.
func verifyOrphanParts(ctx context.Context, db querier, rep *Report, add func(...Problem), bad map[string]bool) error {
	rows, err := db.QueryContext(ctx, `SELECT pa.hash, count(*) FROM parts pa LEFT JOIN prompts pr ON pr.hash = pa.hash
		WHERE pr.hash IS NULL GROUP BY pa.hash ORDER BY pa.hash`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var h string
		var n int64
		if err := rows.Scan(&h, &n); err != nil {
			rows.Close()
			return err
		}
		rep.Parts += n
		bad[h] = true
		add(Problem{Table: "parts", Hash: h, Reason: "no row of prompts has this address: the parts of no prompt"})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	return nil
}

// verifyIDs reports ids that name no prompt and, with a key, those whose
// signature does not verify.
func (s *Store) verifyIDs(ctx context.Context, db querier, since string, rep *Report, add func(...Problem)) error {
	where, args := sinceClause("pr.", since)
	rows, err := db.QueryContext(ctx, s.be.rebind(`SELECT i.name, i.value, i.hash, `+s.signatureColumn("i.")+`, pr.hash
		FROM ids i LEFT JOIN prompts pr ON pr.hash = i.hash`+where+` ORDER BY i.name, i.value, i.hash`), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id idRow
		var prompt sql.NullString
		if err := rows.Scan(&id.name, &id.value, &id.hash, &id.signature, &prompt); err != nil {
			return err
		}
		rep.IDs++
		if id.signature != "" {
			rep.Signed++
		}
		if !prompt.Valid {
			add(Problem{Table: "ids", Hash: id.hash, Name: id.name, Value: id.value, Reason: "names no prompt: no row of prompts has this hash"})
		}
		if s.key != nil {
			if p := id.problem(s.key); p != nil {
				add(*p)
			}
		}
	}
	return rows.Err()
}

// sinceClause is the WHERE clause that keeps the rows of table (a prefix
// such as "pr.") recorded at or after since, with its argument; none for
// "".
func sinceClause(table, since string) (string, []any) {
	if since == "" {
		return "", nil
	}
	return " WHERE " + table + "recorded >= ?", []any{since}
}
