package tokens

// heapPush, heapPop and heapDown keep a min-heap in a slice, four children
// a node: half the depth of a binary heap, with a node's children side by
// side, for the merges' many pushes and pops. The merge's candidates and
// the buckets' ranks and offsets are kept in them.
func heapPush[T int32 | candidate](h []T, x T) []T {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if h[p] <= x {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	return h
}

// heapPop removes the least of h, h[0].
func heapPop[T int32 | candidate](h []T) []T {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	heapDown(h, 0)
	return h
}

// heapDown moves h[i] down to its place below.
func heapDown[T int32 | candidate](h []T, i int) {
	if i >= len(h) {
		return
	}
	c := h[i]
	for {
		first := 4*i + 1
		if first >= len(h) {
			break
		}
		m, least := first, h[first]
		for j := first + 1; j < min(first+4, len(h)); j++ {
			if h[j] < least {
				m, least = j, h[j]
			}
		}
		if least >= c {
			break
		}
		h[i] = least
		i = m
	}
	h[i] = c
}
