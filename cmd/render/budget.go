package main

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/tokens"
)

// tokenOptions turns --tokens into the render option that counts a
// prompt's tokens, and --max-tokens into the one that fits the prompt to
// that many, both with one counter.
func (a *app) tokenOptions() ([]engine.RenderOption, error) {
	if a.maxTokens < 0 {
		return nil, &engine.Error{Kind: engine.KindUsage, Flag: "--max-tokens", Reason: fmt.Sprintf("%d is not a number of tokens", a.maxTokens)}
	}
	if a.tokens == "" {
		if a.maxTokens > 0 {
			return nil, &engine.Error{Kind: engine.KindUsage, Flag: "--max-tokens", Reason: "a budget needs an encoding to count tokens with",
				Hints: []string{"add --tokens o200k_base (or cl100k_base, p50k_base, r50k_base)"}}
		}
		return nil, nil
	}
	tc, err := tokens.New(a.tokens)
	if err != nil {
		return nil, &engine.Error{Kind: engine.KindUsage, Flag: "--tokens", Reason: err.Error(), Err: err}
	}
	opts := []engine.RenderOption{engine.CountTokens(tc)}
	if a.maxTokens > 0 {
		opts = append(opts, engine.FitTokens(a.maxTokens, tc))
	}
	return opts, nil
}

// budgetReport is the lines render check prints about a fitted prompt.
func budgetReport(res *engine.Result) string {
	b := res.Budget
	if b == nil {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "budget %d of %d tokens (%d before cuts, %d renders, first %d bytes unchanged)\n",
		b.Tokens, b.MaxTokens, b.FullTokens, b.Renders, b.StablePrefix)
	if len(res.Breakpoints) > 0 {
		fmt.Fprintf(&s, "  cached prefix %d tokens, up to the breakpoint after %s: never cut\n", b.PrefixTokens, res.Breakpoints[len(res.Breakpoints)-1].Section)
	}
	for _, c := range b.Cuts {
		what := "dropped"
		switch c.Kind {
		case "list":
			what = fmt.Sprintf("%d item(s) left out", c.Items)
		case "text":
			what = fmt.Sprintf("%d character(s) cut", c.Chars)
		}
		fmt.Fprintf(&s, "  cut %s %s: %s, %d tokens saved\n", c.Kind, c.Name, what, c.TokensSaved)
	}
	return s.String()
}
