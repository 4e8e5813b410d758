package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// Breakpoint is a provider cache breakpoint in a rendered prompt: the
// prompt up to End (Text[:End]) is the prefix a provider caches. It goes
// after the section the manifest names, or, when that section was
// dropped, after the last kept section before it.
type Breakpoint struct {
	Section string `json:"section"`
	End     int    `json:"end"`
	Tokens  int    `json:"tokens,omitempty"` // with CountTokens
}

// breakpoints places the manifest's breakpoints in res.
func (v *Variant) breakpoints(res *Result) []Breakpoint {
	idx := v.manifest.BreakpointIndexes()
	if len(idx) == 0 {
		return nil
	}
	out := make([]Breakpoint, 0, len(idx))
	for _, bi := range idx {
		end := 0
		for _, s := range res.Sections {
			if slices.Index(v.manifest.Sections, s.Name) <= bi {
				end = s.End
			}
		}
		out = append(out, Breakpoint{Section: v.manifest.Sections[bi], End: end})
	}
	return out
}

// CachePrefix is the prompt up to its last breakpoint: what a provider
// caches; "" without breakpoints.
func (r *Result) CachePrefix() string {
	if len(r.Breakpoints) == 0 {
		return ""
	}
	return r.Text[:r.Breakpoints[len(r.Breakpoints)-1].End]
}

// CacheBlock is a piece of a prompt split at its breakpoints: Breakpoint
// names the section it ends after, or is "" for the text after the last.
type CacheBlock struct {
	Text       string
	Breakpoint string
}

// CacheBlocks splits the prompt at its breakpoints: the blocks' texts
// joined are the prompt byte for byte, and none is empty (breakpoints at
// one place make one block; a breakpoint at the very start none).
func (r *Result) CacheBlocks() []CacheBlock {
	var out []CacheBlock
	at := 0
	for _, b := range r.Breakpoints {
		if b.End <= at {
			if b.End == at && len(out) > 0 {
				out[len(out)-1].Breakpoint = b.Section // the later name of one place
			}
			continue
		}
		out = append(out, CacheBlock{Text: r.Text[at:b.End], Breakpoint: b.Section})
		at = b.End
	}
	if at < len(r.Text) {
		out = append(out, CacheBlock{Text: r.Text[at:]})
	}
	return out
}

// AnthropicRequest is the system part of an Anthropic Messages API
// request: the prompt as text blocks split at its breakpoints, each block
// that ends at one marked for the cache.
type AnthropicRequest struct {
	System []AnthropicBlock `json:"system"`
}

// AnthropicBlock is one text block of an Anthropic system prompt.
type AnthropicBlock struct {
	Type         string                 `json:"type"`
	Text         string                 `json:"text"`
	CacheControl *AnthropicCacheControl `json:"cache_control,omitempty"`
}

// AnthropicCacheControl marks the end of a cached prefix.
type AnthropicCacheControl struct {
	Type string `json:"type"`
}

// Anthropic is the prompt as an Anthropic request's system blocks.
func (r *Result) Anthropic() AnthropicRequest {
	req := AnthropicRequest{System: []AnthropicBlock{}}
	for _, b := range r.CacheBlocks() {
		blk := AnthropicBlock{Type: "text", Text: b.Text}
		if b.Breakpoint != "" {
			blk.CacheControl = &AnthropicCacheControl{Type: "ephemeral"}
		}
		req.System = append(req.System, blk)
	}
	return req
}

// OpenAIRequest is the part of an OpenAI Chat Completions request the
// prompt makes: one system message, and a prompt_cache_key derived from
// the variant and the prefix up to the last breakpoint, so that requests
// sharing that prefix are routed to the same cache.
type OpenAIRequest struct {
	Messages       []OpenAIMessage `json:"messages"`
	PromptCacheKey string          `json:"prompt_cache_key"`
}

// OpenAIMessage is one message of an OpenAI request.
type OpenAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// OpenAI is the prompt as an OpenAI request's system message and cache key.
func (r *Result) OpenAI() OpenAIRequest {
	return OpenAIRequest{Messages: []OpenAIMessage{{Role: "system", Content: r.Text}}, PromptCacheKey: r.CacheKey()}
}

// CacheKey is a key for the prompt's cached prefix: a hash of the
// variant's name and the bytes up to the last breakpoint (the whole prompt
// shares one key per variant when it declares none).
func (r *Result) CacheKey() string {
	h := sha256.New()
	h.Write([]byte(r.Variant))
	h.Write([]byte{0})
	h.Write([]byte(r.CachePrefix()))
	return "ps-" + hex.EncodeToString(h.Sum(nil))[:32]
}
