package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/promptsmith/promptsmith/engine/budget"
	"github.com/promptsmith/promptsmith/engine/input"
	"github.com/promptsmith/promptsmith/engine/manifest"
)

// BudgetReport says how a prompt was fitted to its budget.
type BudgetReport struct {
	MaxTokens  int `json:"max_tokens"`
	Tokens     int `json:"tokens"`      // the prompt's tokens, after the cuts
	FullTokens int `json:"full_tokens"` // before any cut
	// Renders is how many times the templates ran to find the fit.
	Renders int `json:"renders"`
	// StablePrefix is how many bytes the prompt shares with the uncut one:
	// what a provider's prompt cache can reuse.
	StablePrefix int         `json:"stable_prefix"`
	Cuts         []BudgetCut `json:"cuts,omitempty"`
}

// BudgetCut is what one unit cut, and the tokens that saved.
type BudgetCut struct {
	budget.Applied
	TokensSaved int `json:"tokens_saved"`
}

// data is the input as templates see it: the input (after cuts), the ids
// and, for a variant with a budget, .budget.omitted.<unit> and
// .budget.max_tokens.
func (v *Variant) data(doc *input.Document, ids map[string]string, cut *budget.Cut, maxTokens int) map[string]any {
	root := doc.Root
	if cut != nil {
		root = make(map[string]any, len(cut.Root)+len(ids)+1)
		for k, x := range cut.Root {
			root[k] = x
		}
		doc.Record(root, doc.Keys(cut.Root))
	}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		root[name] = ids[name]
		doc.AppendKey(root, name)
	}
	if len(v.manifest.Budget) > 0 {
		omitted := map[string]any{}
		var names []string
		for _, u := range v.manifest.Budget {
			if u.Kind() == manifest.UnitSection {
				continue
			}
			n := 0
			if cut != nil {
				n = cut.Omitted[u.Name]
			}
			omitted[u.Name] = n
			names = append(names, u.Name)
		}
		doc.Record(omitted, names)
		b := map[string]any{"omitted": omitted, "max_tokens": maxTokens}
		doc.Record(b, []string{"omitted", "max_tokens"})
		root["budget"] = b
		doc.AppendKey(root, "budget")
	}
	return root
}

// fit renders the largest prompt that fits ro.maxTokens: the fewest cuts
// that fit, found by binary search over their number.
func (v *Variant) fit(ctx context.Context, set *execSet, doc *input.Document, ids map[string]string, ro renderOptions) (*Result, map[string]any, error) {
	plan := budget.New(v.manifest.Budget, doc)
	type probe struct {
		res    *Result
		data   map[string]any
		tokens int
	}
	memo := map[int]probe{}
	run := func(k int) (probe, error) {
		if p, ok := memo[k]; ok {
			return p, nil
		}
		cut := plan.Apply(k)
		data := v.data(doc, ids, &cut, ro.maxTokens)
		res, err := v.execute(ctx, set, data, cut.Dropped)
		if err != nil {
			return probe{}, err
		}
		p := probe{res, data, ro.counter.CountTokens(res.Text)}
		memo[k] = p
		return p, nil
	}
	full, err := run(0)
	if err != nil {
		return nil, nil, err
	}
	k := 0
	if full.tokens > ro.maxTokens {
		least, err := run(plan.Total())
		if err != nil {
			return nil, nil, err
		}
		if least.tokens > ro.maxTokens {
			e := &Error{Kind: KindInput, Variant: v.name,
				Reason: fmt.Sprintf("the prompt needs at least %d tokens, over the limit of %d", least.tokens, ro.maxTokens)}
			if plan.Total() > 0 {
				e.Hint("that is with everything the budget of %s may cut cut (%d tokens before); raise the limit, or send a smaller input", v.name, full.tokens)
			} else {
				e.Hint("variant %s has nothing to cut for this input (its manifest's budget:); raise the limit, or send a smaller input", v.name)
			}
			return nil, nil, e
		}
		lo, hi := 0, plan.Total() // run(lo) does not fit, run(hi) does
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			p, err := run(mid)
			if err != nil {
				return nil, nil, err
			}
			if p.tokens <= ro.maxTokens {
				hi = mid
			} else {
				lo = mid
			}
		}
		k = hi
	}
	final := memo[k]
	rep := &BudgetReport{MaxTokens: ro.maxTokens, Tokens: final.tokens, FullTokens: full.tokens,
		StablePrefix: commonPrefix(full.res.Text, final.res.Text)}
	// Tokens saved per unit: the count before the unit's first cut less the
	// count after its last, in the order the cuts were made.
	cut := plan.Apply(k)
	before, done := 0, 0
	for _, a := range cut.Units {
		done += a.Steps
		pb, err := run(before)
		if err != nil {
			return nil, nil, err
		}
		pa, err := run(done)
		if err != nil {
			return nil, nil, err
		}
		rep.Cuts = append(rep.Cuts, BudgetCut{Applied: a, TokensSaved: pb.tokens - pa.tokens})
		before = done
	}
	rep.Renders = len(memo)
	final.res.Budget = rep
	final.res.Tokens = final.tokens
	return final.res, final.data, nil
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
