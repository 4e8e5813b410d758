// Package budget plans how to cut an input so that its prompt fits a number
// of tokens, in the manner of Priompt: the manifest's units (optional
// sections, list items, the ends of texts) are cut in priority order, and
// the engine finds the fewest cuts that fit by binary search over their
// number, so a fit costs a number of renders that grows with the logarithm
// of the number of cuttable items. A Plan only says what the input looks
// like after the first k cuts; it never renders.
package budget

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/engine/input"
	"github.com/promptsmith/promptsmith/engine/manifest"
	"github.com/promptsmith/promptsmith/engine/pointer"
)

// Plan is the cuts one input allows, in the order they are made.
type Plan struct {
	doc   *input.Document
	units []*unit
	total int
}

// unit is a manifest unit resolved against the input.
type unit struct {
	manifest.Unit
	steps int
	order []int  // list: the items' indexes, in the order they are dropped
	text  string // text: the field's value
	runes []int  // text: the byte offset of each character
}

// New resolves the units against a decoded input (after its defaults). A
// unit whose field is missing, or of another type, has nothing to cut.
func New(units []manifest.Unit, doc *input.Document) *Plan {
	p := &Plan{doc: doc}
	for i := range units {
		u := &unit{Unit: units[i]}
		switch u.Kind() {
		case manifest.UnitSection:
			u.steps = 1
		case manifest.UnitList:
			if l, ok := lookup(doc.Root, u.List).([]any); ok {
				u.order = dropOrder(l, u.Unit)
			}
		case manifest.UnitText:
			if s, ok := lookup(doc.Root, u.Text).(string); ok {
				u.text = s
				for off := range s {
					u.runes = append(u.runes, off)
				}
				// The first cut takes the marker's length more, so a cut
				// text is never longer than the whole one.
				u.steps = max(0, len(u.runes)-u.Keep-utf8.RuneCountInString(u.MarkerText()))
			}
		}
		p.units = append(p.units, u)
	}
	// Lowest priority first; of equals, the one declared last first.
	order := make([]int, len(p.units))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(p.units[a].Priority, p.units[b].Priority); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	sorted := make([]*unit, len(order))
	claimed := map[string]map[int]bool{} // list pointer → items an earlier unit may drop
	for i, j := range order {
		u := p.units[j]
		sorted[i] = u
		if u.Kind() == manifest.UnitList {
			// Units on one list share its items: an item is the first one's.
			if claimed[u.List] == nil {
				claimed[u.List] = map[int]bool{}
			}
			own := u.order[:0:0]
			for _, x := range u.order {
				if !claimed[u.List][x] {
					own = append(own, x)
					claimed[u.List][x] = true
				}
			}
			u.order = own
			u.steps = max(0, len(u.order)-u.Keep)
		}
		p.total += u.steps
	}
	p.units = sorted
	return p
}

// Total is the number of cuts the input allows.
func (p *Plan) Total() int { return p.total }

// Cut is the input after some cuts.
type Cut struct {
	// Root is the input as the templates see it: the parts that were cut
	// are copies, everything else is shared with the document.
	Root map[string]any
	// Dropped names the sections left out.
	Dropped map[string]bool
	// Omitted is, for every list and text unit, how many items or
	// characters were left out (zero for those not cut).
	Omitted map[string]int
	// Units are the units cut, in the order they were cut.
	Units []Applied
}

// Applied is what one unit cut.
type Applied struct {
	Name    string            `json:"unit"`
	Kind    manifest.UnitKind `json:"kind"`
	Dropped bool              `json:"dropped,omitempty"` // a section left out
	Items   int               `json:"items,omitempty"`   // list items left out
	Chars   int               `json:"chars,omitempty"`   // characters cut from a text
	Steps   int               `json:"-"`                 // how many of the plan's cuts this is
}

// Apply makes the first k cuts (0 ≤ k ≤ Total).
func (p *Plan) Apply(k int) Cut {
	c := Cut{Root: p.doc.Root, Dropped: map[string]bool{}, Omitted: map[string]int{}}
	dropped := map[string]map[int]bool{} // list pointer → item indexes left out
	for _, u := range p.units {
		if u.Kind() != manifest.UnitSection {
			c.Omitted[u.Name] = 0
		}
		n := min(k, u.steps)
		k -= n
		if n == 0 {
			continue
		}
		a := Applied{Name: u.Name, Kind: u.Kind(), Steps: n}
		switch u.Kind() {
		case manifest.UnitSection:
			c.Dropped[u.Section] = true
			a.Dropped = true
		case manifest.UnitList:
			if dropped[u.List] == nil {
				dropped[u.List] = map[int]bool{}
			}
			for _, i := range u.order[:n] {
				dropped[u.List][i] = true
			}
			a.Items = n
		case manifest.UnitText:
			cut := n + utf8.RuneCountInString(u.MarkerText())
			keep := clusterStart(u.text, u.runes, len(u.runes)-cut)
			c.Root = p.set(c.Root, u.Text, u.text[:u.runes[keep]]+u.MarkerText())
			a.Chars = len(u.runes) - keep
		}
		c.Omitted[u.Name] = a.Items + a.Chars
		c.Units = append(c.Units, a)
	}
	for _, ptr := range slices.Sorted(maps.Keys(dropped)) {
		l := lookup(p.doc.Root, ptr).([]any)
		kept := make([]any, 0, len(l)-len(dropped[ptr]))
		for i, e := range l {
			if !dropped[ptr][i] {
				kept = append(kept, e)
			}
		}
		c.Root = p.set(c.Root, ptr, kept)
	}
	return c
}

// set returns root with the value at ptr replaced, copying the objects and
// lists on the way (keeping their key order) and sharing the rest.
func (p *Plan) set(root map[string]any, ptr string, value any) map[string]any {
	var put func(cur any, toks []string) any
	put = func(cur any, toks []string) any {
		if len(toks) == 0 {
			return value
		}
		switch c := cur.(type) {
		case map[string]any:
			m := make(map[string]any, len(c))
			for k, v := range c {
				m[k] = v
			}
			m[toks[0]] = put(c[toks[0]], toks[1:])
			p.doc.Record(m, p.doc.Keys(c))
			return m
		case []any:
			l := slices.Clone(c)
			if i, ok := index(toks[0], len(l)); ok {
				l[i] = put(l[i], toks[1:])
			}
			return l
		}
		return cur
	}
	return put(root, pointer.Split(ptr)).(map[string]any)
}

// dropOrder lists the indexes of the items a list unit may drop, in the
// order it drops them.
func dropOrder(l []any, u manifest.Unit) []int {
	var idx []int
	for i, e := range l {
		if matches(e, u.Where) {
			idx = append(idx, i)
		}
	}
	switch u.Drop {
	case "first":
	case "oldest", "newest", "lowest", "highest":
		asTime := u.Drop == "oldest" || u.Drop == "newest"
		sign := 1.0
		if u.Drop == "newest" || u.Drop == "highest" {
			sign = -1
		}
		keys := make(map[int]float64, len(idx))
		for _, i := range idx {
			keys[i] = sign * sortKey(field(l[i], u.By), asTime)
		}
		// Stable: of equal keys the earlier item goes first. An item without
		// a key goes before all others either way.
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	default: // last
		slices.Reverse(idx)
	}
	return idx
}

// sortKey reads an item's time (oldest) or number (lowest); an item without
// one is dropped before all others.
func sortKey(v any, asTime bool) float64 {
	if n, ok := v.(int64); ok {
		return float64(n)
	}
	if f, ok := v.(float64); ok {
		return f
	}
	if s, ok := v.(string); ok && asTime {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return float64(t.UnixNano())
			}
		}
	}
	return math.NaN()
}

func matches(item any, where map[string]any) bool {
	for k, want := range where {
		if !input.Equal(field(item, k), want) {
			return false
		}
	}
	return true
}

func field(v any, name string) any {
	if m, ok := v.(map[string]any); ok {
		return m[name]
	}
	return nil
}

func index(tok string, n int) (int, bool) {
	i, err := strconv.Atoi(tok)
	return i, err == nil && i >= 0 && i < n
}

func lookup(root any, ptr string) any {
	v, _ := pointer.Lookup(root, ptr)
	return v
}

// clusterStart moves a cut at character i back to the start of the
// grapheme cluster it falls in, when that is cheap to tell: before
// combining marks, variation selectors and the characters a zero-width
// joiner binds, so that an accent or an emoji sequence is never split.
func clusterStart(s string, runes []int, i int) int {
	i = max(0, i)
	for i > 0 && i < len(runes) {
		r, _ := utf8.DecodeRuneInString(s[runes[i]:])
		prev, _ := utf8.DecodeRuneInString(s[runes[i-1]:])
		if !unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) && r != 0x200D && !(r >= 0xFE00 && r <= 0xFE0F) &&
			!(r >= 0x1F3FB && r <= 0x1F3FF) && prev != 0x200D {
			break
		}
		i--
	}
	return i
}
