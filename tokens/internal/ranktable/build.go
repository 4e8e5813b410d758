package ranktable

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Build lays out the table of ranks: tokens to their ranks, as the
// published rank files give them. The same ranks always give the same
// bytes.
func Build(ranks map[string]int) ([]byte, error) {
	type entry struct {
		token string
		rank  int
	}
	entries := make([]entry, 0, len(ranks))
	short, blobLen, maxRank := 0, 0, 0
	for tok, rank := range ranks {
		if tok == "" || rank < 0 || rank > 1<<31-1 {
			return nil, fmt.Errorf("token %q has rank %d; ranks are non-negative and tokens non-empty", tok, rank)
		}
		entries = append(entries, entry{tok, rank})
		if len(tok) <= ShortMax {
			short++
		} else {
			blobLen += len(tok)
		}
		maxRank = max(maxRank, rank)
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].rank != entries[j].rank {
			return entries[i].rank < entries[j].rank
		}
		return entries[i].token < entries[j].token
	})
	shortBits, longBits := bitsFor(short), bitsFor(len(entries)-short)
	shortSlots, longSlots := 1<<shortBits, 1<<longBits
	out := make([]byte, len(magic)+20+12*shortSlots+12*longSlots+blobLen)
	copy(out, magic)
	h := out[len(magic):]
	binary.LittleEndian.PutUint32(h, uint32(shortBits))
	binary.LittleEndian.PutUint32(h[4:], uint32(longBits))
	binary.LittleEndian.PutUint32(h[8:], uint32(blobLen))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(entries)))
	binary.LittleEndian.PutUint32(h[16:], uint32(maxRank))
	rest := h[20:]
	keys, rest := rest[:8*shortSlots], rest[8*shortSlots:]
	shortRanks, rest := rest[:4*shortSlots], rest[4*shortSlots:]
	long, blob := rest[:12*longSlots], rest[12*longSlots:]
	shortShift, longShift := 64-uint(shortBits), 64-uint(longBits)
	blobAt := 0
	for _, e := range entries {
		if len(e.token) <= ShortMax {
			k := Pack(e.token)
			i := shortSlot(k, shortShift)
			for binary.LittleEndian.Uint64(keys[8*i:]) != 0 {
				i = (i + 1) & uint64(shortSlots-1)
			}
			binary.LittleEndian.PutUint64(keys[8*i:], k)
			binary.LittleEndian.PutUint32(shortRanks[4*i:], uint32(e.rank))
			continue
		}
		i := longSlot(e.token, longShift)
		for binary.LittleEndian.Uint32(long[12*i:]) != 0 {
			i = (i + 1) & uint64(longSlots-1)
		}
		copy(blob[blobAt:], e.token)
		binary.LittleEndian.PutUint32(long[12*i:], uint32(blobAt+1))
		binary.LittleEndian.PutUint32(long[12*i+4:], uint32(len(e.token)))
		binary.LittleEndian.PutUint32(long[12*i+8:], uint32(e.rank))
		blobAt += len(e.token)
	}
	return out, nil
}

// bitsFor sizes a table for n entries at a load of at most two thirds.
func bitsFor(n int) int {
	bits := 1
	for 1<<bits < n+n/2 {
		bits++
	}
	return bits
}
