package input

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"slices"
	"strconv"
	"unsafe"
)

// Canonical is a streaming hash of values' canonical encoding: a one-byte
// type tag, then for strings their length and raw bytes (no escaping, so a
// 1 MiB parent prompt is hashed, not copied), for objects their entries
// sorted by key, for arrays their elements, for numbers their shortest
// decimal form. Every value is length-prefixed or fixed-size, so no two
// inputs share an encoding, and the key order of objects never counts.
type Canonical struct {
	w *bufio.Writer
	h hash.Hash
	// keys holds the sorted keys of the objects being encoded, innermost
	// last, so that each object does not allocate a list of its own.
	keys []string
}

// NewCanonical starts an encoding hashed with SHA-256.
func NewCanonical() *Canonical {
	h := sha256.New()
	// The buffer gathers the small writes of tags and lengths; a long string
	// goes through it in pieces. bufio's default of 4 KiB was most of what a
	// render with ids and unique rules allocated.
	return &Canonical{w: bufio.NewWriterSize(h, 256), h: h}
}

// Sum finishes the encoding and returns its SHA-256.
func (c *Canonical) Sum() []byte {
	c.w.Flush()
	return c.h.Sum(nil)
}

func (c *Canonical) length(n int) {
	c.w.Write(binary.AppendUvarint(c.w.AvailableBuffer(), uint64(n)))
}

// Value adds v to the encoding.
func (c *Canonical) Value(v any) {
	switch x := v.(type) {
	case nil:
		c.w.WriteByte('z')
	case bool:
		if x {
			c.w.WriteByte('t')
		} else {
			c.w.WriteByte('f')
		}
	case string:
		c.w.WriteByte('s')
		c.length(len(x))
		if len(x) <= c.w.Available() {
			c.w.WriteString(x)
			break
		}
		// A long string, such as a parent prompt, goes to the hash as it
		// is, not copied through the buffer in pieces. A hash never
		// writes to what it is given, nor keeps it.
		c.w.Flush()
		c.h.Write(unsafe.Slice(unsafe.StringData(x), len(x)))
	case int64, int, float64:
		c.number(numberText(x))
	case map[string]any:
		base := len(c.keys)
		for k := range x {
			c.keys = append(c.keys, k)
		}
		keys := c.keys[base:]
		slices.Sort(keys)
		c.w.WriteByte('o')
		c.length(len(keys))
		for _, k := range keys {
			c.Value(k)
			c.Value(x[k])
		}
		c.keys = c.keys[:base]
	case []any:
		c.w.WriteByte('a')
		c.length(len(x))
		for _, e := range x {
			c.Value(e)
		}
	default:
		c.Value(string(AppendJSON(nil, v, nil, false)))
	}
}

func (c *Canonical) number(s string) {
	c.w.WriteByte('n')
	c.length(len(s))
	c.w.WriteString(s)
}

// numberText is the canonical text of a number: 1, 1.0 and int 1 are "1".
func numberText(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// Key is a fingerprint of v: two values have the same Key exactly when they
// are Equal. A scalar is its own fingerprint, its type tag and its text; an
// object, an array or a long string is the hash of its canonical encoding.
func Key(v any) string {
	switch x := v.(type) {
	case nil:
		return "z"
	case bool:
		if x {
			return "t"
		}
		return "f"
	case string:
		if len(x) <= shortKey {
			return "s" + x
		}
	case int64, int, float64:
		return "n" + numberText(x)
	}
	c := NewCanonical()
	c.Value(v)
	return "#" + string(c.Sum())
}

// shortKey is the longest string that is its own Key: keys of longer ones
// are hashes, so a rule over long texts holds 33 bytes a value, not a copy.
const shortKey = 64

// Equal is the one equality of the engine, used by the unique and references
// rules and by the template functions where, whereIn, whereNot and find: two
// values are equal when their canonical encodings are. So numbers are equal
// by value (1 and 1.0), a number never equals a string ("1"), strings are
// equal byte for byte, objects when they hold equal values under the same
// keys whatever their order, and arrays element by element.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case int64, int, float64:
		switch b.(type) {
		case int64, int, float64:
			return numberText(a) == numberText(b)
		}
		return false
	}
	switch b.(type) {
	case string, bool, nil, int64, int, float64:
		return false
	}
	return Key(a) == Key(b)
}
