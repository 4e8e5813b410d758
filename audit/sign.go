package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// Signatures. An address fixes a prompt's bytes and the addresses of the
// prompts it embeds, so a changed byte or a redirected child is found
// without any secret. It fixes nothing else: anyone who can write to the
// database can store a prompt of their own, with a true address and any
// metadata, and point an id at it. A Store opened with a key therefore
// signs every row it writes to prompts and ids with an HMAC-SHA256 of a
// canonical encoding of the row, and reads only rows whose signature
// verifies: a writer without the key can add or change rows, but not ones
// that a Store with the key accepts.

// MinKeySize is the shortest key WithKey accepts: as many bytes as the
// HMAC-SHA256 it keys, so that the key is no easier to guess than a tag.
const MinKeySize = 32

// An Option changes how Open and OpenReadOnly open a store.
type Option func(*options)

type options struct {
	key    []byte
	keySet bool
	// statementTimeout bounds each write and read (WithStatementTimeout).
	statementTimeout time.Duration
	// writers is the number of transactions written at once (WithWriters).
	writers int
}

// WithKey gives the store a key of at least MinKeySize bytes. Every record
// the store writes is signed with it, and every read (Get, Chain, Links,
// Verify) refuses a row whose signature is missing or does not verify
// with it. A store opened without a key neither signs nor checks
// signatures: a store written without a key stays readable without one.
func WithKey(key []byte) Option {
	return func(o *options) { o.key, o.keySet = bytes.Clone(key), true }
}

func keyError(o options) error {
	if o.keySet && len(o.key) < MinKeySize {
		return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("the audit key is %d bytes; it needs at least %d", len(o.key), MinKeySize),
			Hints: []string{"make a key file with: openssl rand -hex 32 > audit.key"}}
	}
	return nil
}

// Domain prefixes of the signed encodings: a prompt's signature can never
// pass for an id's, whatever their fields.
const (
	promptSigPrefix = "promptsmith audit prompt signature v1\x00"
	idSigPrefix     = "promptsmith audit id signature v1\x00"
)

// partSum is what a signature covers of one part: its place, the SHA-256
// of its bytes, and the prompt it embeds in which region. The region is
// not in the address; the signature is what keeps it from being changed.
type partSum struct {
	seq           int
	sum           string
	child, region string
}

// sums returns the partSums of a node about to be written.
func (n *node) sums() []partSum {
	out := make([]partSum, len(n.segs))
	for i, seg := range n.segs {
		child, region := n.kid(i)
		out[i] = partSum{seq: i, sum: Hash(seg), child: child, region: region}
	}
	return out
}

// sums returns the partSums of parts read from the store.
func sums(parts []part) []partSum {
	out := make([]partSum, len(parts))
	for i, p := range parts {
		out[i] = partSum{seq: p.seq, sum: Hash(p.bytes), child: p.child, region: p.region}
	}
	return out
}

// signPrompt is the hex HMAC-SHA256, with key, of a prompts row and its
// parts: every column of the row but the signature itself, then each
// part, then its origin when it has one (signOrigin), each field
// length-prefixed so that no two rows encode alike.
func signPrompt(key []byte, r *promptRow, parts []partSum) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(promptSigPrefix))
	for _, f := range []string{r.hash, r.sha256, strconv.FormatInt(r.size, 10), r.variant, r.library, r.short,
		r.variantHash, r.version, r.recorded, r.budget} {
		field(m, f)
	}
	field(m, strconv.Itoa(len(parts)))
	for _, p := range parts {
		field(m, strconv.Itoa(p.seq))
		field(m, p.sum)
		field(m, p.child)
		field(m, p.region)
	}
	signOrigin(m, r.origin)
	return hex.EncodeToString(m.Sum(nil))
}

// signID is the hex HMAC-SHA256, with key, of an ids row: an id's name and
// value, and the address of the prompt it names.
func signID(key []byte, name, value, hash string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(idSigPrefix))
	field(m, name)
	field(m, value)
	field(m, hash)
	return hex.EncodeToString(m.Sum(nil))
}

func field(h hash.Hash, s string) {
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	writeString(h, s)
}

// signatureProblem checks a row's signature against the one key makes of
// it; nil when it verifies.
func signatureProblem(p Problem, stored, want string) *Problem {
	switch {
	case stored == "":
		p.Reason = "has no signature: it was written without the audit key"
	case !hmac.Equal([]byte(stored), []byte(want)):
		p.Reason = "its signature does not verify with the audit key: the row or its parts changed after it was signed, or another key signed it"
	default:
		return nil
	}
	return &p
}
