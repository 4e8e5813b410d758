package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// CacheProof is what rendering an input again, with one volatile field
// changed to another value its schema allows, shows of each breakpoint:
// whether the prompt up to it stayed byte for byte the same.
type CacheProof struct {
	// Field is the volatile pointer changed; Value the value it was given,
	// as short JSON. Skipped says why no value was tried (the field is not
	// in this input, or the schema allows no other value found).
	Field       string            `json:"field"`
	Value       string            `json:"value,omitempty"`
	Skipped     string            `json:"skipped,omitempty"`
	Breakpoints []BreakpointProof `json:"breakpoints,omitempty"`
}

// BreakpointProof is one breakpoint under one change: Differs is the
// offset of the first byte of the prefix that changed, -1 when none did.
type BreakpointProof struct {
	Section string `json:"section"`
	End     int    `json:"end"`
	Differs int    `json:"differs"`
	// Was and Now are a few bytes from where the prefix first differs.
	Was string `json:"was,omitempty"`
	Now string `json:"now,omitempty"`
}

// OK reports whether every breakpoint's prefix stayed the same.
func (p CacheProof) OK() bool {
	for _, b := range p.Breakpoints {
		if b.Differs >= 0 {
			return false
		}
	}
	return true
}

// ProveCache renders in, then renders it again once per volatile field
// (cache.volatile) with that field changed to another value the schema
// allows: another enum value, a time shifted, a number or text changed, an
// object or list changed within its schema (a change the schema refuses
// is not tried: the next is). It returns the prompt as rendered and, per
// field, whether each breakpoint's prefix stayed byte for byte the same.
func (v *Variant) ProveCache(ctx context.Context, in Input, opts ...RenderOption) (*Result, []CacheProof, error) {
	res, err := v.Render(ctx, in, opts...)
	if err != nil {
		return res, nil, err
	}
	c := v.manifest.Cache
	if c == nil || len(res.Breakpoints) == 0 {
		return res, nil, nil
	}
	var proofs []CacheProof
	for _, field := range c.Volatile {
		p, err := v.proveField(ctx, in, res, field, opts)
		if err != nil {
			return res, nil, err
		}
		proofs = append(proofs, p)
	}
	return res, proofs, nil
}

func (v *Variant) proveField(ctx context.Context, in Input, base *Result, field string, opts []RenderOption) (CacheProof, error) {
	proof := CacheProof{Field: field}
	doc, err := input.Decode(in, nil)
	if err != nil {
		return proof, err
	}
	defer doc.Release()
	v.schema.ApplyDefaults(doc)
	values := valuesAt(doc.Root, pointer.Split(field))
	if len(values) == 0 {
		proof.Skipped = "the field is not in this input"
		return proof, nil
	}
	node := v.schema.Root()
	for _, tok := range pointer.Split(field) {
		if tok == "*" || isIndex(tok) {
			node = node.Elem()
		} else {
			node, _ = node.Field(tok)
		}
	}
	var fallback *Result
	var fallbackValue string
	for _, cand := range changes(doc, node, values[0], 0) {
		root := doc.Copy(doc.Root, doc.Order()).(map[string]any)
		setAt(doc, root, pointer.Split(field), cand)
		data := input.AppendJSON(nil, root, doc.Order(), false)
		res, err := v.Render(ctx, Input{Name: fmt.Sprintf("%s with %s changed", in.Name, field), Data: data}, opts...)
		if err != nil {
			if e := AsError(err); e != nil && (e.Kind == KindInput || e.Kind == KindCheck) {
				continue // a value the schema or the rules refuse: try the next
			}
			return proof, err
		}
		value := input.Short(cand, doc.Order())
		if res.Text == base.Text {
			if fallback == nil {
				fallback, fallbackValue = res, value
			}
			continue // it changed nothing: look for a change that shows
		}
		proof.Value = value
		proof.Breakpoints = compareBreakpoints(base, res)
		return proof, nil
	}
	if fallback != nil {
		proof.Value = fallbackValue
		proof.Breakpoints = compareBreakpoints(base, fallback)
		return proof, nil
	}
	proof.Skipped = "no other value the schema allows was found for it"
	return proof, nil
}

func compareBreakpoints(base, res *Result) []BreakpointProof {
	var out []BreakpointProof
	for i, b := range base.Breakpoints {
		was := base.Text[:b.End]
		now := ""
		if i < len(res.Breakpoints) {
			now = res.Text[:res.Breakpoints[i].End]
		}
		bp := BreakpointProof{Section: b.Section, End: b.End, Differs: -1}
		if was != now {
			at := phrase.CommonPrefixLen(was, now)
			bp.Differs = at
			bp.Was, bp.Now = excerpt(was, at), excerpt(now, at)
		}
		out = append(out, bp)
	}
	return out
}

// excerpt is up to 40 bytes of s from at, cut at a UTF-8 boundary.
func excerpt(s string, at int) string {
	if at >= len(s) {
		return ""
	}
	end := min(len(s), at+40)
	for end < len(s) && end > at && !isRuneStart(s[end]) {
		end--
	}
	return s[at:end]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isIndex(tok string) bool {
	_, err := strconv.Atoi(tok)
	return err == nil
}

// valuesAt are the values at the pointer, * standing for every element.
func valuesAt(cur any, toks []string) []any {
	if len(toks) == 0 {
		return []any{cur}
	}
	switch c := cur.(type) {
	case map[string]any:
		if x, ok := c[toks[0]]; ok {
			return valuesAt(x, toks[1:])
		}
	case []any:
		if toks[0] == "*" {
			var out []any
			for _, e := range c {
				out = append(out, valuesAt(e, toks[1:])...)
			}
			return out
		}
		if i, err := strconv.Atoi(toks[0]); err == nil && i >= 0 && i < len(c) {
			return valuesAt(c[i], toks[1:])
		}
	}
	return nil
}

// setAt sets the value at the pointer (each element's, for *) to a copy
// of val.
func setAt(doc *input.Document, cur any, toks []string, val any) {
	if len(toks) == 0 {
		return
	}
	last := len(toks) == 1
	switch c := cur.(type) {
	case map[string]any:
		if _, ok := c[toks[0]]; !ok {
			return
		}
		if last {
			c[toks[0]] = doc.Copy(val, doc.Order())
			return
		}
		setAt(doc, c[toks[0]], toks[1:], val)
	case []any:
		for i := range c {
			if toks[0] != "*" && toks[0] != strconv.Itoa(i) {
				continue
			}
			if last {
				c[i] = doc.Copy(val, doc.Order())
			} else {
				setAt(doc, c[i], toks[1:], val)
			}
		}
	}
}

// changes are values other than x that the schema at node may allow, the
// likeliest first: another enum value; a time shifted; a number moved; a
// text changed; a boolean flipped; an object with its fields changed (all
// at once, then one at a time); a list with its items changed, one fewer
// or one more.
func changes(doc *input.Document, node schema.Node, x any, depth int) []any {
	if depth > 8 {
		return nil
	}
	var out []any
	if enum := node.Self().Enum; len(enum) > 1 {
		for _, e := range enum {
			var val any
			if json.Unmarshal([]byte(e), &val) == nil && !input.Equal(normalize(val), x) {
				out = append(out, normalize(val))
			}
		}
		return out
	}
	switch c := x.(type) {
	case string:
		for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
			if t, err := time.Parse(layout, c); err == nil {
				shift := 90 * time.Minute
				if layout == time.DateOnly {
					shift = 24 * time.Hour
				}
				if layout == time.RFC3339Nano && !strings.Contains(c, ".") {
					layout = time.RFC3339
				}
				out = append(out, t.Add(shift).Format(layout), t.Add(-shift).Format(layout))
			}
		}
		out = append(out, c+" (changed)", changedLast(c), "changed")
	case int64:
		out = append(out, c+1, c-1, c*2+3)
	case float64:
		out = append(out, c+1.5, c+1, c-1)
	case bool:
		out = append(out, !c)
	case map[string]any:
		keys := doc.Keys(c)
		all := doc.Copy(c, doc.Order()).(map[string]any)
		changed := false
		var single []any
		for _, k := range keys {
			child, _ := node.Field(k)
			sub := changes(doc, child, c[k], depth+1)
			if len(sub) == 0 {
				continue
			}
			all[k], changed = sub[0], true
			for _, s := range sub {
				one := doc.Copy(c, doc.Order()).(map[string]any)
				one[k] = s
				single = append(single, one)
			}
		}
		if changed {
			out = append(out, all)
		}
		out = append(out, single...)
	case []any:
		elem := node.Elem()
		if len(c) > 0 {
			if sub := changes(doc, elem, c[0], depth+1); len(sub) > 0 {
				l := slices.Clone(c)
				l[0] = sub[0]
				out = append(out, l)
			}
			out = append(out, slices.Clone(c[:len(c)-1]))
			out = append(out, append(slices.Clone(c), doc.Copy(c[0], doc.Order())))
		}
	}
	return out
}

// normalize gives a decoded JSON value the types of the input's tree:
// whole numbers as int64, objects as they are.
func normalize(v any) any {
	switch c := v.(type) {
	case float64:
		if c == float64(int64(c)) {
			return int64(c)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(c)) {
			c[k] = normalize(c[k])
		}
	case []any:
		for i := range c {
			c[i] = normalize(c[i])
		}
	}
	return v
}

// changedLast is s with its last character replaced by another.
func changedLast(s string) string {
	if s == "" {
		return "x"
	}
	r := []rune(s)
	if r[len(r)-1] == 'x' {
		r[len(r)-1] = 'y'
	} else {
		r[len(r)-1] = 'x'
	}
	return string(r)
}
