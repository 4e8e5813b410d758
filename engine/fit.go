package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine/internal/budget"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
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
	StablePrefix int `json:"stable_prefix"`
	// PrefixTokens are the tokens up to the last cache breakpoint, which
	// no cut reaches (cache.breakpoints); 0 without breakpoints.
	PrefixTokens int         `json:"prefix_tokens,omitempty"`
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
// that fit. The uncut prompt is rendered and counted first; if it is over
// the limit, each unit's part of it is counted once (estimateSavings) and
// the search guesses from those counts where the limit falls, then renders
// to know: the guess and its neighbour are usually all it renders, the
// cut prompts being small where the uncut one is large. Every count that
// decides is exact (fewestCuts).
func (v *Variant) fit(ctx context.Context, set *execSet, doc *input.Document, ids map[string]string, ro renderOptions) (*Result, map[string]any, error) {
	plan := budget.New(v.cuttable(), doc)
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
		total := plan.Total()
		saved := estimateSavings(full.res, plan.Units(), v.manifest.JoinText(), ro.counter, total)
		hi, err := fewestCuts(total, full.tokens, ro.maxTokens, saved, func(k int) (int, error) {
			p, err := run(k)
			return p.tokens, err
		})
		if err != nil {
			return nil, nil, err
		}
		if hi > total {
			// The fewest tokens a render reached: a cut that leaves a note
			// of what it left out can cost more than it saves, so every
			// cut made is not always the smallest prompt.
			least := full.tokens
			for _, p := range memo {
				least = min(least, p.tokens)
			}
			small := &BudgetTooSmall{MinTokens: least, MaxTokens: ro.maxTokens, FullTokens: full.tokens}
			e := &Error{Kind: KindInput, Variant: v.name, Reason: small.Error(), Err: small}
			return nil, nil, v.tooSmallHint(e, total, full.tokens, least)
		}
		k = hi
	}
	final := memo[k]
	rep := &BudgetReport{MaxTokens: ro.maxTokens, Tokens: final.tokens, FullTokens: full.tokens,
		StablePrefix: phrase.CommonPrefixLen(full.res.Text, final.res.Text)}
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
	if bps := v.breakpoints(final.res); len(bps) > 0 {
		rep.PrefixTokens = ro.counter.CountTokens(final.res.Text[:bps[len(bps)-1].End])
	}
	final.res.Budget = rep
	final.res.Tokens = final.tokens
	return final.res, final.data, nil
}

// fewestCuts is the least number of cuts, of total, whose prompt fits in
// limit tokens, or total+1 when not even all of them make it fit; full is
// the uncut prompt's count, saved the estimate of what the first k cuts
// save, and count renders the prompt with k cuts and counts it. The search
// keeps lo, a number of cuts known not to fit, and hi, one known to fit
// (total+1 until one is), and ends when they are neighbours, as a binary
// search does: where each cut lowers the count, both find the one cut that
// fits next to one that does not. Its first three probes are guesses: the
// least k the estimate, corrected by the last probe's miss, says fits, or
// hi's neighbour when that is hi; then it halves what is left.
func fewestCuts(total, full, limit int, saved []int, count func(k int) (int, error)) (int, error) {
	lo, hi, offset := 0, total+1, 0
	for guesses := 0; hi-lo > 1; guesses++ {
		var k int
		if guesses < 3 {
			k = firstFit(saved, full+offset-limit, lo+1, min(hi, total))
			if k == hi {
				k = hi - 1 // the estimate agrees with what is known: make sure of the cut before
			}
		} else {
			k = lo + (hi-lo)/2
		}
		tokens, err := count(k)
		if err != nil {
			return 0, err
		}
		offset = tokens - (full - saved[k])
		if tokens <= limit {
			hi = k
		} else {
			lo = k
		}
	}
	return hi, nil
}

// firstFit is the least k in [from, to] whose cuts the estimate says save
// at least need tokens; to when none does.
func firstFit(saved []int, need, from, to int) int {
	if from > to {
		return to
	}
	i, _ := slices.BinarySearch(saved[from:to+1], need)
	return min(from+i, to)
}

// tooSmallHint says what to do about a budget no fit meets: with every
// cut made, with cuts that make the prompt no smaller, with none the
// budget allows, or with none the last cache breakpoint allows.
func (v *Variant) tooSmallHint(e *Error, total, fullTokens, leastTokens int) *Error {
	switch {
	case total > 0 && leastTokens >= fullTokens:
		e.Hint("the cuts the budget of %s allows make it no smaller: what the templates write of what a cut left out costs as much as it saves; raise the limit to at least %d, send a smaller input, or shorten those notes", v.name, leastTokens)
	case total > 0:
		e.Hint("that is with every cut the budget of %s allows made (%d tokens before any); raise the limit to at least %d, or send a smaller input", v.name, fullTokens, leastTokens)
	case len(v.pinnedUnits()) > 0:
		e.Hint("variant %s has nothing to cut for this input: its budget units %s cut before its last cache breakpoint, which a fit never does (render lint warns of them); raise the limit, send a smaller input, or move the breakpoint before what the budget cuts",
			v.name, strings.Join(v.pinnedUnits(), ", "))
	default:
		e.Hint("variant %s has nothing to cut for this input (its manifest's budget:); raise the limit, or send a smaller input", v.name)
	}
	return e
}
