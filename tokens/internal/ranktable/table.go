// Package ranktable is the binary form of a byte-pair encoding's ranks, as
// the tokens package embeds it: hash tables laid out at build time, so that
// an encoding loads without parsing anything and a count reads only the
// slots its lookups touch.
//
// The layout, all numbers little-endian:
//
//	magic        "promptsmith ranks 1\n"
//	header       five uint32: short bits, long bits, blob length, tokens, max rank
//	short keys   uint64 per slot (1 << short bits): a token of at most seven
//	             bytes packed with its length (Pack); 0 is an empty slot
//	short ranks  int32 per slot
//	long slots   three uint32 per slot (1 << long bits): offset+1 of the
//	             token in the blob (0: empty), its length, its rank
//	blob         the bytes of the tokens longer than seven bytes
//
// Both tables are open addressing with linear probing, filled in rank order
// so that the same ranks always build the same bytes.
package ranktable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

const magic = "promptsmith ranks 1\n"

// ShortMax is the longest token kept in the short table.
const ShortMax = 7

// Table finds the rank of a token. It is only read, so it is safe for
// concurrent use.
type Table struct {
	shortKeys  []byte
	shortRanks []byte
	shortMask  uint64
	shortShift uint
	long       []byte
	longMask   uint64
	longShift  uint
	blob       []byte
	tokens     int
}

// Open reads a table from the bytes Build wrote. The table keeps data; it
// must not change.
func Open(data string) (*Table, error) {
	b := unsafe.Slice(unsafe.StringData(data), len(data))
	if len(b) < len(magic)+20 || string(b[:len(magic)]) != magic {
		return nil, errors.New("not a rank table (its magic is missing)")
	}
	h := b[len(magic):]
	shortBits, longBits := binary.LittleEndian.Uint32(h), binary.LittleEndian.Uint32(h[4:])
	blobLen, tokens := binary.LittleEndian.Uint32(h[8:]), binary.LittleEndian.Uint32(h[12:])
	if shortBits == 0 || shortBits > 30 || longBits == 0 || longBits > 30 {
		return nil, fmt.Errorf("rank table sizes out of range: 2^%d and 2^%d slots", shortBits, longBits)
	}
	shortSlots, longSlots := 1<<shortBits, 1<<longBits
	want := len(magic) + 20 + 12*shortSlots + 12*longSlots + int(blobLen)
	if len(b) != want {
		return nil, fmt.Errorf("rank table is %d bytes; its header says %d", len(b), want)
	}
	rest := h[20:]
	t := &Table{
		shortMask: uint64(shortSlots - 1), shortShift: 64 - uint(shortBits),
		longMask: uint64(longSlots - 1), longShift: 64 - uint(longBits),
		tokens: int(tokens),
	}
	t.shortKeys, rest = rest[:8*shortSlots], rest[8*shortSlots:]
	t.shortRanks, rest = rest[:4*shortSlots], rest[4*shortSlots:]
	t.long, rest = rest[:12*longSlots], rest[12*longSlots:]
	t.blob = rest
	return t, nil
}

// Len is the number of tokens in the table.
func (t *Table) Len() int { return t.tokens }

// Rank is the rank of token s, and whether s is a token.
func (t *Table) Rank(s string) (int32, bool) {
	if len(s) > ShortMax {
		return t.longRank(s)
	}
	k := Pack(s)
	for i := shortSlot(k, t.shortShift); ; i = (i + 1) & t.shortMask {
		switch binary.LittleEndian.Uint64(t.shortKeys[8*i:]) {
		case k:
			return int32(binary.LittleEndian.Uint32(t.shortRanks[4*i:])), true
		case 0:
			return 0, false
		}
	}
}

func (t *Table) longRank(s string) (int32, bool) {
	for i := longSlot(s, t.longShift); ; i = (i + 1) & t.longMask {
		slot := t.long[12*i : 12*i+12]
		off := binary.LittleEndian.Uint32(slot)
		if off == 0 {
			return 0, false
		}
		n := binary.LittleEndian.Uint32(slot[4:])
		if int(n) == len(s) && string(t.blob[off-1:off-1+n]) == s {
			return int32(binary.LittleEndian.Uint32(slot[8:])), true
		}
	}
}

// All calls f with every token and its rank, short tokens first.
func (t *Table) All(f func(token string, rank int32)) {
	for i := 0; i < len(t.shortKeys)/8; i++ {
		if k := binary.LittleEndian.Uint64(t.shortKeys[8*i:]); k != 0 {
			f(unpack(k), int32(binary.LittleEndian.Uint32(t.shortRanks[4*i:])))
		}
	}
	for i := 0; i < len(t.long)/12; i++ {
		slot := t.long[12*i:]
		if off := binary.LittleEndian.Uint32(slot); off != 0 {
			n := binary.LittleEndian.Uint32(slot[4:])
			f(string(t.blob[off-1:off-1+n]), int32(binary.LittleEndian.Uint32(slot[8:])))
		}
	}
}

// Pack packs a string of 1 to 7 bytes: its bytes, and its length in the
// top byte, so that no two strings share a key and none is 0.
func Pack(s string) uint64 {
	k := uint64(len(s)) << 56
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

func unpack(k uint64) string {
	n := int(k >> 56)
	b := make([]byte, n)
	for i := range n {
		b[i] = byte(k >> (8 * i))
	}
	return string(b)
}

func shortSlot(k uint64, shift uint) uint64 { return (k * 0x9E3779B97F4A7C15) >> shift }

// longSlot hashes a long token with FNV-1a, a hash fixed across processes
// (the table is laid out at build time), mixed into the top bits.
func longSlot(s string, shift uint) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return (h * 0x9E3779B97F4A7C15) >> shift
}
