package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
	"github.com/promptsmith/promptsmith/tokens"
)

// tokenAsk is what a request's ?max_tokens=N&tokens=ENC ask of a render:
// the prompt fitted to N tokens counted with ENC (the server's Tokens when
// the request names none), and its token counts, per section too, in ENC.
// A request with neither, to a server with no Tokens, asks nothing, and
// pays for no counting.
type tokenAsk struct {
	max     int             // 0: no budget
	enc     string          // the encoding counted with; "" when nothing is asked
	counter *tokens.Counter // nil when nothing is asked
}

// tokensParam is the tokens parameter of a render (tokenAsk); package
// openapi has max_tokens.
func tokensParam(*openapi.Builder) map[string]any {
	return map[string]any{"name": "tokens", "in": "query",
		"description": "The encoding to count tokens with, the prompt's and each section's; max_tokens counts with it (the server's --tokens by default).",
		"schema":      map[string]any{"type": "string", "enum": tokens.Encodings()}}
}

// tokenAsk reads a request's ?max_tokens and ?tokens.
func (s *Server) tokenAsk(r *http.Request) (tokenAsk, error) {
	q := r.URL.Query()
	ask := tokenAsk{enc: q.Get("tokens")}
	if ask.enc == "" {
		ask.enc = s.Tokens
	}
	if m := q.Get("max_tokens"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 {
			return tokenAsk{}, &engine.Error{Kind: engine.KindUsage, Parameter: "max_tokens",
				Reason: fmt.Sprintf("max_tokens %q is not a whole number of 1 or more", m)}
		}
		ask.max = n
		if ask.enc == "" {
			return tokenAsk{}, &engine.Error{Kind: engine.KindUsage, Parameter: "max_tokens", Reason: "a budget needs an encoding to count tokens with",
				Hints: []string{"add &tokens=o200k_base (or " + strings.Join(tokens.Encodings(), ", ") + ")"}}
		}
	}
	if ask.enc == "" {
		return ask, nil
	}
	tc, err := s.counters.get(ask.enc)
	if err != nil {
		return tokenAsk{}, &engine.Error{Kind: engine.KindUsage, Parameter: "tokens", Reason: err.Error()}
	}
	ask.counter = tc
	return ask, nil
}

// fit is the render option of the budget asked for, if any: all a render
// needs whose token counts nobody reads (a check, a golden file).
func (a tokenAsk) fit() []engine.RenderOption {
	if a.max == 0 {
		return nil
	}
	return []engine.RenderOption{engine.FitTokens(a.max, a.counter)}
}

// options are the render options of a render that answers its Result: the
// budget, and the token counts whenever an encoding was asked for.
func (a tokenAsk) options() []engine.RenderOption {
	if a.counter == nil {
		return nil
	}
	return append(a.fit(), engine.CountTokens(a.counter))
}

// counters are the token encodings requests have asked for, each loaded
// once: there are four.
type counters struct {
	mu sync.Mutex
	by map[string]*tokens.Counter
}

func (c *counters) get(enc string) (*tokens.Counter, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tc := c.by[enc]; tc != nil {
		return tc, nil
	}
	tc, err := tokens.New(enc)
	if err != nil {
		return nil, err
	}
	if c.by == nil {
		c.by = map[string]*tokens.Counter{}
	}
	c.by[enc] = tc
	return tc, nil
}
