package tokens

// merger runs the byte-pair merge of one piece. The piece's parts are a
// linked list of their start offsets; the candidate merges, one per pair of
// neighbouring parts whose concatenation is a token, wait in a min-heap by
// rank, then offset. A merge changes only the pairs on either side of it,
// so each costs a few map lookups and heap operations: n log n in all, where
// rescanning the parts for the lowest rank after each merge is quadratic.
//
// The result is the same as the rescanning merge's: both take the lowest
// rank, and the leftmost pair among equal ranks. An entry of the heap is
// stale once its pair has changed; a pair only ever grows, and each token
// has one rank, so an entry is current exactly when its rank is the one its
// pair has now.
type merger struct {
	next []int32 // start of the part after the one starting here; len(piece) for the last
	prev []int32 // start of the part before; -1 for the first
	rank []int32 // rank of the pair starting here; noRank when there is none or the part is merged away
	heap []candidate
}

type candidate struct{ rank, at int32 }

const noRank = -1

// merge returns the number of tokens piece encodes to; piece has two bytes
// or more and is not a token itself.
func (mg *merger) merge(piece string, ranks map[string]int) int {
	n := int32(len(piece))
	mg.next = grow(mg.next, len(piece))
	mg.prev = grow(mg.prev, len(piece))
	mg.rank = grow(mg.rank, len(piece))
	mg.heap = mg.heap[:0]
	next, prev, rank := mg.next, mg.prev, mg.rank
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	pairRank := func(at int32) int32 {
		mid := next[at]
		if mid >= n {
			return noRank
		}
		if r, ok := ranks[piece[at:next[mid]]]; ok {
			return int32(r)
		}
		return noRank
	}
	for i := range n {
		rank[i] = pairRank(i)
		if rank[i] != noRank {
			mg.heap = append(mg.heap, candidate{rank[i], i})
		}
	}
	for i := len(mg.heap)/2 - 1; i >= 0; i-- {
		mg.down(i)
	}
	parts := int(n)
	for len(mg.heap) > 0 {
		c := mg.pop()
		if rank[c.at] != c.rank {
			continue // stale: the pair changed since
		}
		at, gone := c.at, next[c.at]
		next[at] = next[gone]
		if next[at] < n {
			prev[next[at]] = at
		}
		rank[gone] = noRank
		parts--
		if rank[at] = pairRank(at); rank[at] != noRank {
			mg.push(candidate{rank[at], at})
		}
		if p := prev[at]; p >= 0 {
			if rank[p] = pairRank(p); rank[p] != noRank {
				mg.push(candidate{rank[p], p})
			}
		}
	}
	return parts
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func (c candidate) less(d candidate) bool {
	return c.rank < d.rank || (c.rank == d.rank && c.at < d.at)
}

func (mg *merger) push(c candidate) {
	h := append(mg.heap, c)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	mg.heap = h
}

func (mg *merger) pop() candidate {
	h := mg.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	mg.heap = h[:last]
	mg.down(0)
	return top
}

func (mg *merger) down(i int) {
	h := mg.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
