// Package budget plans how to cut an input so that its prompt fits a number
// of tokens, in the manner of Priompt: the manifest's units (optional
// sections, list items, the ends of texts) are cut in priority order, and
// the engine finds the fewest cuts that fit by searching over their number:
// it guesses from what each unit's part of the uncut prompt counts (Units
// says which items and texts the cuts take) and renders to make sure, so a
// fit usually costs the uncut render and two small ones, and at worst a
// binary search's renders and three more. A Plan only says what the input
// looks like after the first k cuts; it never renders.
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

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/pointer"
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
//
// Every unit names its field by its pointer into the document as written,
// so the cuts are gathered first and made in one pass over the document,
// each at its place in the original: a text cut inside a list item, or a
// list inside another, lands on the item it names whatever the enclosing
// list drops, and survives that list's cut.
func (p *Plan) Apply(k int) Cut {
	c := Cut{Root: p.doc.Root, Dropped: map[string]bool{}, Omitted: map[string]int{}}
	edits := &edit{}
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
			e := edits.at(u.List)
			if e.drop == nil {
				e.drop = map[int]bool{}
			}
			for _, i := range u.order[:n] {
				e.drop[i] = true
			}
			a.Items = n
		case manifest.UnitText:
			cut := n + utf8.RuneCountInString(u.MarkerText())
			keep := clusterBoundary(u.text, u.runes, len(u.runes)-cut, u.Keep)
			if keep < len(u.runes) {
				e := edits.at(u.Text)
				e.value, e.set = u.text[:u.runes[keep]]+u.MarkerText(), true
				a.Chars = len(u.runes) - keep
			}
		}
		c.Omitted[u.Name] = a.Items + a.Chars
		c.Units = append(c.Units, a)
	}
	if edits.set || edits.drop != nil || len(edits.kids) > 0 {
		c.Root, _ = p.rebuild(p.doc.Root, edits).(map[string]any)
	}
	return c
}

// edit is what Apply changes at one place of the document, and below it,
// by the tokens of the original pointers.
type edit struct {
	set   bool // the value here is replaced by value, a cut text
	value any
	drop  map[int]bool // a list's items left out, by original index
	kids  map[string]*edit
}

// at is the edit at ptr below e, made on first use.
func (e *edit) at(ptr string) *edit {
	for _, tok := range pointer.Split(ptr) {
		if e.kids == nil {
			e.kids = map[string]*edit{}
		}
		if e.kids[tok] == nil {
			e.kids[tok] = &edit{}
		}
		e = e.kids[tok]
	}
	return e
}

// rebuild returns cur with the edits made, copying the objects and lists on
// their way (keeping key order) and sharing the rest. Edits below a list's
// items are made by original index before the list drops any.
func (p *Plan) rebuild(cur any, e *edit) any {
	if e.set {
		return e.value
	}
	switch c := cur.(type) {
	case map[string]any:
		m := maps.Clone(c)
		for tok, sub := range e.kids {
			if v, ok := c[tok]; ok {
				m[tok] = p.rebuild(v, sub)
			}
		}
		p.doc.Record(m, p.doc.Keys(c))
		return m
	case []any:
		l := slices.Clone(c)
		for tok, sub := range e.kids {
			if i, ok := index(tok, len(l)); ok {
				l[i] = p.rebuild(l[i], sub)
			}
		}
		if e.drop == nil {
			return l
		}
		kept := make([]any, 0, len(l))
		for i, x := range l {
			if !e.drop[i] {
				kept = append(kept, x)
			}
		}
		return kept
	}
	return cur
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

// clusterBoundary moves a cut at character i back to the start of the
// grapheme cluster it falls in, when that is cheap to tell (combining
// marks, variation selectors, skin tones, what a zero-width joiner binds),
// so that an accent or an emoji sequence is never split. Where that start
// lies inside the first keep characters, which are never cut, it moves
// forward to the cluster's end instead: the cut takes less, not what keep
// protects. len(runes) means nothing is cut.
func clusterBoundary(s string, runes []int, i, keep int) int {
	i = max(keep, i)
	back := i
	for back > 0 && back < len(runes) && joined(s, runes, back) {
		back--
	}
	if back >= keep {
		return back
	}
	for i < len(runes) && joined(s, runes, i) {
		i++
	}
	return i
}

// joined reports whether character i belongs to the cluster of the one
// before it.
func joined(s string, runes []int, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[runes[i]:])
	prev, _ := utf8.DecodeRuneInString(s[runes[i-1]:])
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) || r == 0x200D || (r >= 0xFE00 && r <= 0xFE0F) ||
		(r >= 0x1F3FB && r <= 0x1F3FF) || prev == 0x200D
}

// Planned is one unit as the plan cuts it, for estimating what its cuts
// save before making them.
type Planned struct {
	manifest.Unit
	// Steps is how many of the plan's cuts are this unit's, in plan order
	// after those of the units before it.
	Steps int
	// Items are, for a list, the items its steps drop, in that order.
	Items []any
	// Text is, for a text, the field's value, whose end its steps cut.
	Text string
}

// Units are the plan's units in the order their cuts are made.
func (p *Plan) Units() []Planned {
	out := make([]Planned, 0, len(p.units))
	for _, u := range p.units {
		pl := Planned{Unit: u.Unit, Steps: u.steps, Text: u.text}
		if u.Kind() == manifest.UnitList && u.steps > 0 {
			if l, ok := lookup(p.doc.Root, u.List).([]any); ok {
				pl.Items = make([]any, u.steps)
				for i, x := range u.order[:u.steps] {
					pl.Items[i] = l[x]
				}
			}
		}
		out = append(out, pl)
	}
	return out
}
