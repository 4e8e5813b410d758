package main

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/tokens"
)

// cacheOutcome is what render test proves of one example of a variant
// that declares cache breakpoints: its breakpoints with their prefixes'
// tokens, and, per volatile field, whether each prefix stayed the same.
type cacheOutcome struct {
	Variant     string              `json:"variant"`
	Example     string              `json:"example"`
	Encoding    string              `json:"encoding"`
	Breakpoints []engine.Breakpoint `json:"breakpoints"`
	Proofs      []engine.CacheProof `json:"proofs"`
	Error       string              `json:"error,omitempty"`
	text        string
}

func (o cacheOutcome) ok() bool {
	if o.Error != "" {
		return false
	}
	for _, p := range o.Proofs {
		if !p.OK() {
			return false
		}
	}
	return true
}

// cacheMinimum is the fewest tokens a provider caches a prefix of.
type cacheMinimum struct {
	Provider string
	Tokens   int
}

// cacheMinimums are the providers' minimum cacheable lengths: Anthropic's
// for Claude Sonnet and Opus, and for Haiku; OpenAI's, from which it
// caches on its own.
func cacheMinimums() []cacheMinimum {
	return []cacheMinimum{{"OpenAI", 1024}, {"Anthropic Sonnet/Opus", 1024}, {"Anthropic Haiku", 2048}}
}

// proveCaches renders every example of each named variant (all when none
// is) that declares breakpoints, again with each volatile field changed,
// and counts each breakpoint's prefix in tokens: with --tokens, else
// o200k_base (OpenAI's encoding; Anthropic's tokenizer is not public, so
// its counts are near, not exact).
func (a *app) proveCaches(lib *engine.Library, names []string) ([]cacheOutcome, error) {
	enc := a.tokens
	if enc == "" {
		enc = "o200k_base"
	}
	tc, err := tokens.New(enc)
	if err != nil {
		return nil, &engine.Error{Kind: engine.KindUsage, Flag: "--tokens", Reason: err.Error(), Err: err}
	}
	if len(names) == 0 {
		names = lib.Names()
	}
	var out []cacheOutcome
	for _, name := range names {
		v, err := lib.Variant(name)
		if err != nil || v.Manifest().BreakpointIndexes() == nil {
			continue // a broken variant is the golden files' failure
		}
		for _, ex := range v.Examples() {
			o := cacheOutcome{Variant: name, Example: ex, Encoding: enc}
			in, err := v.Example(ex)
			if err == nil {
				var res *engine.Result
				res, o.Proofs, err = v.ProveCache(a.ctx, in, engine.CountTokens(tc))
				if res != nil {
					o.Breakpoints, o.text = res.Breakpoints, res.Text
				}
			}
			if err != nil {
				if e := engine.AsError(err); e != nil && e.Kind == engine.KindCancelled {
					return nil, err
				}
				o.Error = err.Error()
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// cacheReport is one line per breakpoint of each example: its prefix in
// tokens against the providers' minimums, and the volatile fields changed
// without changing it; a breakpoint whose prefix changed is a FAIL line
// naming the field, its new value and the first byte that differs.
func cacheReport(outs []cacheOutcome) (string, int) {
	var b strings.Builder
	failed := 0
	for _, o := range outs {
		at := o.Variant + "/" + o.Example
		if !o.ok() {
			failed++
		}
		if o.Error != "" {
			fmt.Fprintf(&b, "FAIL cache %s: %s\n", at, o.Error)
			continue
		}
		for i, bp := range o.Breakpoints {
			var same, skipped []string
			for _, p := range o.Proofs {
				switch {
				case p.Skipped != "":
					skipped = append(skipped, p.Field)
				case p.Breakpoints[i].Differs < 0:
					same = append(same, p.Field)
				default:
					d := p.Breakpoints[i]
					line, col := lineCol(o.text, d.Differs)
					fmt.Fprintf(&b, "FAIL cache %s: the prefix up to the breakpoint after %s changed with %s set to %s: first differing byte %d (line %d, column %d): %q became %q\n",
						at, bp.Section, p.Field, p.Value, d.Differs, line, col, d.Was, d.Now)
				}
			}
			fmt.Fprintf(&b, "cache %s: after %s, %d tokens (%s); %s", at, bp.Section, bp.Tokens, o.Encoding, minimumsText(bp.Tokens))
			if len(same) > 0 {
				fmt.Fprintf(&b, "; the same with %s changed", strings.Join(same, ", "))
			}
			if len(skipped) > 0 {
				fmt.Fprintf(&b, "; not in this example: %s", strings.Join(skipped, ", "))
			}
			b.WriteByte('\n')
		}
	}
	return b.String(), failed
}

// minimumsText says which providers cache a prefix of n tokens.
func minimumsText(n int) string {
	var yes, no []string
	for _, m := range cacheMinimums() {
		if n >= m.Tokens {
			yes = append(yes, fmt.Sprintf("%s (%d)", m.Provider, m.Tokens))
		} else {
			no = append(no, fmt.Sprintf("%s (%d)", m.Provider, m.Tokens))
		}
	}
	switch {
	case len(no) == 0:
		return "long enough for " + strings.Join(yes, ", ")
	case len(yes) == 0:
		return "below every provider's minimum: " + strings.Join(no, ", ")
	}
	return "long enough for " + strings.Join(yes, ", ") + "; below " + strings.Join(no, ", ")
}

// lineCol is the line and column (bytes, from 1) of offset at in s.
func lineCol(s string, at int) (int, int) {
	at = min(at, len(s))
	line := 1 + strings.Count(s[:at], "\n")
	return line, at - strings.LastIndexByte(s[:at], '\n')
}
