package engine

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
	"sync"
)

// computeIDs derives each manifest id from a canonical encoding of the input
// fields it names: the same input gives the same id on every machine, in JSON
// or YAML, whatever the key order; any change to those fields gives another.
func (v *Variant) computeIDs(root map[string]any) map[string]string {
	if len(v.Manifest.IDs) == 0 {
		return nil
	}
	ids := make(map[string]string, len(v.Manifest.IDs))
	for name, spec := range v.Manifest.IDs {
		w := newCanonicalWriter()
		for _, ptr := range spec.Of {
			val, _ := lookup(root, ptr)
			w.value(ptr)
			w.value(val)
		}
		n := spec.Length
		if n == 0 {
			n = 16
		}
		ids[name] = spec.Prefix + hex.EncodeToString(w.sum())[:n]
	}
	return ids
}

// canonicalKey is a short fingerprint of v's canonical encoding, for telling
// equal values apart from different ones whatever their key order.
func canonicalKey(v any) string {
	w := newCanonicalWriter()
	w.value(v)
	return string(w.sum())
}

// canonicalWriter streams the canonical encoding into a hash: a one-byte type
// tag, then for strings their length and raw bytes (no escaping, so a 1 MiB
// parent prompt is hashed, not copied), for objects their entries sorted by
// key, for arrays their elements, for numbers their shortest decimal form.
// Every value is length-prefixed or fixed-size, so no two inputs share an
// encoding.
type canonicalWriter struct {
	w *bufio.Writer
	h hash.Hash
}

var writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 4096) }}

func newCanonicalWriter() canonicalWriter {
	h := sha256.New()
	w := writerPool.Get().(*bufio.Writer)
	w.Reset(h)
	return canonicalWriter{w, h}
}

// sum finishes the encoding and returns the writer to the pool.
func (c canonicalWriter) sum() []byte {
	c.w.Flush()
	c.w.Reset(nil)
	writerPool.Put(c.w)
	return c.h.Sum(nil)
}

func (c canonicalWriter) length(n int) {
	c.w.Write(binary.AppendUvarint(c.w.AvailableBuffer(), uint64(n)))
}

func (c canonicalWriter) value(v any) {
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
		c.w.WriteString(x)
	case int64:
		c.number(strconv.FormatInt(x, 10))
	case int:
		c.number(strconv.Itoa(x))
	case float64:
		if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
			c.number(strconv.FormatInt(int64(x), 10))
		} else {
			c.number(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		c.w.WriteByte('o')
		c.length(len(keys))
		for _, k := range keys {
			c.value(k)
			c.value(x[k])
		}
	case []any:
		c.w.WriteByte('a')
		c.length(len(x))
		for _, e := range x {
			c.value(e)
		}
	default:
		c.value(string(appendJSON(nil, v, false)))
	}
}

func (c canonicalWriter) number(s string) {
	c.w.WriteByte('n')
	c.length(len(s))
	c.w.WriteString(s)
}
