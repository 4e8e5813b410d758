package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
)

// A node is one stored prompt: only its own bytes, cut where it embeds
// other prompts. Its text is segs[0] + text(kids[0]) + segs[1] + … +
// text(kids[k-1]) + segs[k]; a prompt that embeds nothing is one segment.
type node struct {
	hash    string   // its address (see address)
	sha256  string   // the SHA-256 of its text, for a prompt that embeds nothing
	size    int64    // the length of its whole text
	segs    []string // len(kids)+1 slices of the rendered text, never copies
	kids    []string // the addresses of the prompts it embeds, in text order
	regions []string // the name of the verbatim region each kid fills
}

// Domain prefixes of the address: a prompt that embeds nothing can never
// have the address of one that does, whatever its bytes.
const (
	leafPrefix = "promptsmith audit leaf v1\x00"
	nodePrefix = "promptsmith audit node v1\x00"
)

// address is the hex SHA-256 of a node's own bytes and the addresses of the
// prompts it embeds, each segment length-prefixed: a Merkle tree, so that
// the address of a prompt is fixed by its text (and where its embedded
// prompts stand) and computing it reads each byte of a chain once, however
// deep it nests. Hashing each level's whole text instead would read a chain
// of d levels d/2 times over.
func address(segs, kids []string) string {
	h := sha256.New()
	if len(kids) == 0 {
		h.Write([]byte(leafPrefix))
		writeString(h, segs[0])
		return hex.EncodeToString(h.Sum(nil))
	}
	h.Write([]byte(nodePrefix))
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(kids)))])
	for i, s := range segs {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		writeString(h, s)
		if i < len(kids) {
			h.Write([]byte(kids[i])) // 64 hex digits: fixed length
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeString hashes s without copying it when it is large.
func writeString(h hash.Hash, s string) {
	if sw, ok := h.(interface{ WriteString(string) (int, error) }); ok {
		sw.WriteString(s)
		return
	}
	h.Write([]byte(s))
}

// newNode builds the node for text[start:end] whose embedded prompts fill
// the given ranges (ordered, disjoint, inside [start, end)).
func newNode(text string, start, end int, ranges [][2]int, kids []*node, regions []string) *node {
	n := &node{size: int64(end - start), regions: regions}
	at := start
	for i, r := range ranges {
		n.segs = append(n.segs, text[at:r[0]])
		n.kids = append(n.kids, kids[i].hash)
		at = r[1]
	}
	n.segs = append(n.segs, text[at:end])
	n.hash = address(n.segs, n.kids)
	if len(n.kids) == 0 {
		n.sha256 = Hash(n.segs[0])
	}
	return n
}

// split cuts a rendered prompt into nodes: the prompt itself (returned
// first) and every prompt embedded in one of its verbatim regions, at any
// depth, each once.
//
// Cost: O(n) in the length n of res.Text, whatever the nesting depth. Every
// line of the text is looked at once and every byte hashed once: a region's
// nested regions are found in the same pass that finds the region (a stack
// of open markers, as verbatim.Markers.TopRegions reads them at depth 0),
// not by scanning each level's text again, which for a chain of d levels
// would read the text d/2 times over.
func split(v *engine.Variant, res *engine.Result) (*node, []*node, error) {
	var all []*node
	var ranges [][2]int
	var kids []*node
	var regions []string
	for _, r := range res.Regions {
		if r.Start < 0 || r.End < r.Start || r.End > len(res.Text) || (len(ranges) > 0 && r.Start < ranges[len(ranges)-1][1]) {
			return nil, nil, fmt.Errorf("region %q: bytes %d to %d are not an ordered range of the prompt", r.Name, r.Start, r.End)
		}
		if v == nil {
			return nil, nil, fmt.Errorf("region %q: recording a prompt with verbatim regions needs the variant that rendered it", r.Name)
		}
		vb, ok := v.Verbatim(r.Name)
		if !ok {
			return nil, nil, fmt.Errorf("region %q: variant %q declares no such verbatim region", r.Name, v.Name())
		}
		kid := splitRegion(res.Text, r.Start, r.End, verbatim.Of(vb), r.Name, &all)
		ranges = append(ranges, [2]int{r.Start, r.End})
		kids = append(kids, kid)
		regions = append(regions, r.Name)
	}
	top := newNode(res.Text, 0, len(res.Text), ranges, kids, regions)
	return top, append(all, top), nil
}

// splitRegion cuts text[start:end], the field of a region with markers m,
// into the prompt it holds and the prompts nested in that one, appending
// each to all, and returns the outermost. Markers are whole lines (a
// trailing \r allowed), and a region's field ends before the newline that
// precedes its end marker, as in verbatim.Markers.TopRegions. A field whose
// markers do not balance (never the case for a field the engine accepted)
// is kept whole, as a prompt that embeds nothing.
func splitRegion(text string, start, end int, m verbatim.Markers, name string, all *[]*node) *node {
	type frame struct {
		start  int
		ranges [][2]int
		kids   []*node
	}
	mark := len(*all)
	stack := []frame{{start: start}}
	for off := start; off < end; {
		next := end
		if nl := strings.IndexByte(text[off:end], '\n'); nl >= 0 {
			next = off + nl + 1
		}
		line := strings.TrimSuffix(strings.TrimSuffix(text[off:next], "\n"), "\r")
		switch {
		case len(line) != len(m.Start) && len(line) != len(m.End): // cheap test first
		case line == m.Start:
			stack = append(stack, frame{start: next})
		case line == m.End:
			if len(stack) == 1 {
				return keepWhole(text, start, end, all, mark)
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			fieldEnd := max(off-1, f.start)
			n := newNode(text, f.start, fieldEnd, f.ranges, f.kids, repeat(name, len(f.kids)))
			*all = append(*all, n)
			parent := &stack[len(stack)-1]
			parent.ranges = append(parent.ranges, [2]int{f.start, fieldEnd})
			parent.kids = append(parent.kids, n)
		}
		off = next
	}
	if len(stack) != 1 {
		return keepWhole(text, start, end, all, mark)
	}
	f := stack[0]
	n := newNode(text, start, end, f.ranges, f.kids, repeat(name, len(f.kids)))
	*all = append(*all, n)
	return n
}

// keepWhole drops the nodes a failed split appended and stores the field as
// one prompt.
func keepWhole(text string, start, end int, all *[]*node, mark int) *node {
	*all = (*all)[:mark]
	n := newNode(text, start, end, nil, nil, nil)
	*all = append(*all, n)
	return n
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// part is one stored segment of a prompt: its own bytes, then (unless it is
// the last) the prompt embedded after them.
type part struct {
	seq    int
	bytes  string
	child  string
	region string
}

// assemble returns the text of the prompt at root, made from the parts of
// it and of every prompt it embeds (see assembleTo).
func assemble(parts map[string][]part, root string, done map[string]string) (string, error) {
	var b strings.Builder
	if err := assembleTo(&b, parts, root, done); err != nil {
		return "", err
	}
	return b.String(), nil
}

// assembleTo writes the text of the prompt at root to b from the parts of
// it and of every prompt it embeds, iteratively, so that a chain nested
// 10,000 deep needs no deep recursion. done holds texts already assembled
// (nil for none). Cost: O(length of the text).
func assembleTo(b io.StringWriter, parts map[string][]part, root string, done map[string]string) error {
	type frame struct {
		hash string
		i    int
	}
	stack := []frame{{hash: root}}
	open := map[string]bool{root: true}
	if _, ok := parts[root]; !ok {
		return fmt.Errorf("prompt %s: its parts are missing from the audit store", root)
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		ps := parts[f.hash]
		if f.i == len(ps) {
			delete(open, f.hash)
			stack = stack[:len(stack)-1]
			continue
		}
		p := ps[f.i]
		f.i++
		b.WriteString(p.bytes)
		if p.child == "" {
			continue
		}
		if t, ok := done[p.child]; ok {
			b.WriteString(t)
			continue
		}
		if _, ok := parts[p.child]; !ok {
			return fmt.Errorf("prompt %s embeds %s, whose parts are missing from the audit store", f.hash, p.child)
		}
		if open[p.child] {
			return fmt.Errorf("prompt %s embeds itself through %s: the audit store was altered", p.child, f.hash)
		}
		open[p.child] = true
		stack = append(stack, frame{hash: p.child})
	}
	return nil
}
