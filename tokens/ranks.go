package tokens

// ranks finds the rank of a token. Most lookups, the pairs a merge tries
// and the short words that are tokens whole, are of seven bytes or fewer:
// those are packed into a number, bytes and length, and found in an
// open-addressing table by one multiplication and a probe or two, with no
// string hashing; longer ones are in a map.
type ranks struct {
	short []shortRank // power-of-two size; key 0 is an empty slot
	mask  uint64
	shift uint
	long  map[string]int32
}

type shortRank struct {
	key  uint64
	rank int32
}

const shortMax = 7

func newRanks(all map[string]int) *ranks {
	n := 0
	for tok := range all {
		if len(tok) <= shortMax {
			n++
		}
	}
	bits := uint(1)
	for 1<<bits < 2*n {
		bits++
	}
	r := &ranks{short: make([]shortRank, 1<<bits), mask: 1<<bits - 1, shift: 64 - bits, long: make(map[string]int32, len(all)-n)}
	for tok, rank := range all {
		if len(tok) > shortMax {
			r.long[tok] = int32(rank)
			continue
		}
		k := packShort(tok)
		for i := r.slot(k); ; i = (i + 1) & r.mask {
			if r.short[i].key == 0 {
				r.short[i] = shortRank{k, int32(rank)}
				break
			}
		}
	}
	return r
}

// packShort packs a string of 1 to 7 bytes: its bytes, and its length in
// the top byte, so that no two strings share a key and none is 0.
func packShort(s string) uint64 {
	k := uint64(len(s)) << 56
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

func (r *ranks) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> r.shift }

// rank is the rank of token s, and whether s is a token.
func (r *ranks) rank(s string) (int32, bool) {
	if len(s) > shortMax {
		rank, ok := r.long[s]
		return rank, ok
	}
	k := packShort(s)
	for i := r.slot(k); ; i = (i + 1) & r.mask {
		switch r.short[i].key {
		case k:
			return r.short[i].rank, true
		case 0:
			return 0, false
		}
	}
}
