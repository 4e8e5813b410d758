package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
)

// computeIDs derives each manifest id from a canonical encoding of the input
// fields it names: the same input gives the same id on every machine, and any
// change to those fields gives another.
func (v *Variant) computeIDs(root map[string]any) map[string]string {
	if len(v.Manifest.IDs) == 0 {
		return nil
	}
	ids := make(map[string]string, len(v.Manifest.IDs))
	for name, spec := range v.Manifest.IDs {
		h := sha256.New()
		var b []byte
		for _, ptr := range spec.Of {
			val, _ := lookup(root, ptr)
			b = appendCanonical(b[:0], ptr)
			b = append(b, ':')
			b = appendCanonical(b, val)
			b = append(b, '\n')
			h.Write(b)
		}
		n := spec.Length
		if n == 0 {
			n = 16
		}
		ids[name] = spec.Prefix + hex.EncodeToString(h.Sum(nil))[:n]
	}
	return ids
}

// appendCanonical is JSON with object keys sorted by their bytes, no
// insignificant space, integers in decimal and other numbers in the shortest
// form that round-trips.
func appendCanonical(b []byte, v any) []byte {
	switch c := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendCanonical(b, c[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range c {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case float64:
		if c == float64(int64(c)) && c < 1e15 && c > -1e15 {
			return strconv.AppendInt(b, int64(c), 10)
		}
	}
	return appendJSON(b, v, false)
}
