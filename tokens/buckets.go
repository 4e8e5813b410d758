package tokens

// buckets is the merge's queue for long pieces: the candidates grouped by
// rank, each group in offset order, and a small heap of the ranks that
// have candidates. A long piece is mostly a few pairs repeated (a run of
// one letter, of spaces), so a heap of every candidate, 4-ary or not,
// spends its time on sift-downs through a heap as large as the piece,
// with a cache miss a level; here a candidate costs a map lookup for its
// rank's group and an append, and taking the next is reading the head of
// the lowest rank's group: linear in the piece, but for the ranks' heap,
// which is as large as the number of distinct pairs.
//
// The order is the heap's, the lowest rank then the leftmost offset.
// Offsets arrive in a group mostly in increasing order (the first scan
// goes left to right, and so does the merging of one rank), and are
// appended to its queue; one that comes before the queue's last waits in
// the group's own heap, and the next is the lesser of the two heads.
type buckets struct {
	byRank map[int32]int32 // rank → index in groups
	groups []group
	ranks  []int32 // min-heap of the ranks whose groups may hold candidates
}

type group struct {
	rank   int32
	queue  []int32 // increasing offsets, read from head
	head   int
	late   []int32 // min-heap of offsets that arrived out of order
	queued bool    // the rank is in the ranks' heap
}

func (b *buckets) reset() {
	if b.byRank == nil {
		b.byRank = map[int32]int32{}
	}
	clear(b.byRank)
	b.groups = b.groups[:0]
	b.ranks = b.ranks[:0]
}

func (b *buckets) push(rank, at int32) {
	i, ok := b.byRank[rank]
	if !ok {
		i = int32(len(b.groups))
		b.byRank[rank] = i
		if len(b.groups) < cap(b.groups) {
			b.groups = b.groups[:i+1]
			g := &b.groups[i]
			g.rank, g.queue, g.head, g.late, g.queued = rank, g.queue[:0], 0, g.late[:0], false
		} else {
			b.groups = append(b.groups, group{rank: rank})
		}
	}
	g := &b.groups[i]
	if q := g.queue; len(q) == g.head || q[len(q)-1] <= at {
		g.queue = append(q, at)
	} else {
		g.late = heapPush(g.late, at)
	}
	if !g.queued {
		g.queued = true
		b.ranks = heapPush(b.ranks, rank)
	}
}

// pop takes the candidate of the lowest rank and offset; ok is false when
// none is left.
func (b *buckets) pop() (rank, at int32, ok bool) {
	for len(b.ranks) > 0 {
		g := &b.groups[b.byRank[b.ranks[0]]]
		fromQueue := g.head < len(g.queue)
		fromLate := len(g.late) > 0
		switch {
		case fromQueue && (!fromLate || g.queue[g.head] <= g.late[0]):
			at = g.queue[g.head]
			g.head++
		case fromLate:
			at = g.late[0]
			g.late = heapPop(g.late)
		default:
			g.queued = false
			g.queue, g.head = g.queue[:0], 0
			b.ranks = heapPop(b.ranks)
			continue
		}
		return g.rank, at, true
	}
	return 0, 0, false
}
