package tokens

// merger runs the byte-pair merge of one piece. The piece's parts are a
// linked list of their start offsets; the candidate merges, one per pair of
// neighbouring parts whose concatenation is a token, wait in a queue by
// rank, then offset. A merge changes only the pairs on either side of it,
// so each costs a few rank lookups and queue operations, where rescanning
// the parts for the lowest rank after each merge, as tiktoken does, is
// quadratic in the piece's length. The queue of a short piece is a heap
// (n log n, with a small n); that of a long one is buckets by rank
// (buckets.go), linear but for the number of distinct pairs.
//
// The result is the same as the rescanning merge's: both take the lowest
// rank, and the leftmost pair among equal ranks. An entry of the heap is
// stale once its pair has changed; a pair only ever grows, and each token
// has one rank, so an entry is current exactly when its rank is the one its
// pair has now.
//
// The heap is 4-ary, of candidates packed in one number (rank above
// offset), so that it is half as deep and each step compares numbers that
// sit side by side in memory. A merger is reused from count to count, so
// merging allocates nothing once its slices are grown.
type merger struct {
	next    []int32 // start of the part after the one starting here; len(piece) for the last
	prev    []int32 // start of the part before; -1 for the first
	rank    []int32 // rank of the pair starting here; noRank when there is none or the part is merged away
	heap    []candidate
	long    bool // the piece is long: its candidates wait in buckets, not in heap
	buckets buckets
}

// longPiece is the length from which a piece's candidates wait in buckets.
const longPiece = 256

// candidate is a pair's rank in the high 32 bits and its offset in the low
// ones: ordering the numbers orders by rank, then offset.
type candidate uint64

func pack(rank, at int32) candidate { return candidate(uint64(uint32(rank))<<32 | uint64(uint32(at))) }

func (c candidate) rank() int32 { return int32(c >> 32) }
func (c candidate) at() int32   { return int32(uint32(c)) }

const noRank = -1

// merge returns the number of tokens piece encodes to; piece has two bytes
// or more and is not a token itself.
func (mg *merger) merge(piece string, ranks *ranks) int {
	n := int32(len(piece))
	mg.next = grow(mg.next, len(piece))
	mg.prev = grow(mg.prev, len(piece))
	mg.rank = grow(mg.rank, len(piece))
	mg.long = len(piece) >= longPiece
	if mg.long {
		mg.buckets.reset()
	} else {
		mg.heap = mg.heap[:0]
	}
	next, prev, rank := mg.next, mg.prev, mg.rank
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	pairRank := func(at int32) int32 {
		mid := next[at]
		if mid >= n {
			return noRank
		}
		if r, ok := ranks.rank(piece[at:next[mid]]); ok {
			return r
		}
		return noRank
	}
	for i := range n {
		rank[i] = pairRank(i)
		if rank[i] == noRank {
			continue
		}
		if mg.long {
			mg.buckets.push(rank[i], i)
		} else {
			mg.heap = append(mg.heap, pack(rank[i], i))
		}
	}
	for i := (len(mg.heap) - 2) / 4; i >= 0; i-- {
		mg.down(i)
	}
	parts := int(n)
	for {
		r, at, ok := mg.take()
		if !ok {
			break
		}
		if rank[at] != r {
			continue // stale: the pair changed since
		}
		gone := next[at]
		next[at] = next[gone]
		if next[at] < n {
			prev[next[at]] = at
		}
		rank[gone] = noRank
		parts--
		if rank[at] = pairRank(at); rank[at] != noRank {
			mg.add(rank[at], at)
		}
		if p := prev[at]; p >= 0 {
			if rank[p] = pairRank(p); rank[p] != noRank {
				mg.add(rank[p], p)
			}
		}
	}
	return parts
}

// add queues a candidate.
func (mg *merger) add(rank, at int32) {
	if mg.long {
		mg.buckets.push(rank, at)
	} else {
		mg.push(pack(rank, at))
	}
}

// take takes the candidate of the lowest rank, then offset.
func (mg *merger) take() (rank, at int32, ok bool) {
	if mg.long {
		return mg.buckets.pop()
	}
	if len(mg.heap) == 0 {
		return 0, 0, false
	}
	c := mg.pop()
	return c.rank(), c.at(), true
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func (mg *merger) push(c candidate) { mg.heap = heapPush(mg.heap, c) }

func (mg *merger) pop() candidate {
	top := mg.heap[0]
	mg.heap = heapPop(mg.heap)
	return top
}

func (mg *merger) down(i int) { heapDown(mg.heap, i) }
