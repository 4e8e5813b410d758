package server

import (
	"container/list"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// The provider shapes of a rendered prompt (?format=anthropic|openai),
// and promptsmith_cache_prefix_changes_total: a render whose prefix up to
// its last cache breakpoint differs from the previous render of the same
// label, variant and ?cache_key, which an operator watches for a prefix
// that churns.

// formatOf reads ?format: "" (the Result), anthropic or openai.
func formatOf(r *http.Request) (string, error) {
	f := r.URL.Query().Get("format")
	switch f {
	case "", "result", "anthropic", "openai":
		if f == "result" {
			f = ""
		}
		return f, nil
	}
	return "", &engine.Error{Kind: engine.KindUsage, Parameter: "format",
		Reason: fmt.Sprintf("format %s is not one of result, anthropic, openai", phrase.Quote(f)),
		Hints:  []string{"leave format out for the Result; anthropic gives {system: [...]} split at the cache breakpoints, openai {messages: [...], prompt_cache_key}"}}
}

// providerBody is the prompt shaped as the provider's request.
func providerBody(format string, res *engine.Result) any {
	switch format {
	case "anthropic":
		return res.Anthropic()
	case "openai":
		return res.OpenAI()
	}
	return nil
}

// maxPrefixKeys bounds the prefixes remembered: the least recently seen
// key is forgotten first, and counts as new when it comes back.
const maxPrefixKeys = 4096

// prefixes remembers, per label, variant and cache key, a hash of the
// last prefix rendered, in at most max entries.
type prefixes struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *prefixEntry, most recent first
	at    map[string]*list.Element
}

type prefixEntry struct {
	key  string
	hash [16]byte
}

func newPrefixes(max int) *prefixes {
	return &prefixes{max: max, order: list.New(), at: map[string]*list.Element{}}
}

// changed records prefix for key and reports whether it differs from the
// one recorded before (false for a key not seen, or forgotten).
func (p *prefixes) changed(key, prefix string) bool {
	sum := sha256.Sum256([]byte(prefix))
	var h [16]byte
	copy(h[:], sum[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.at[key]; ok {
		pe := e.Value.(*prefixEntry)
		p.order.MoveToFront(e)
		differs := pe.hash != h
		pe.hash = h
		return differs
	}
	p.at[key] = p.order.PushFront(&prefixEntry{key: key, hash: h})
	for p.order.Len() > p.max {
		last := p.order.Back()
		delete(p.at, last.Value.(*prefixEntry).key)
		p.order.Remove(last)
	}
	return false
}

// len is the number of keys remembered.
func (p *prefixes) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.order.Len()
}

// notePrefix counts a render whose cached prefix changed since the last
// render of its label, variant and ?cache_key. A variant without
// breakpoints has no cached prefix to watch; a render without a cache_key
// names nobody whose cache it would miss (renders for many agents would
// read as one prefix churning), and is not counted.
func (s *Server) notePrefix(r *http.Request, label string, res *engine.Result) {
	who := r.URL.Query().Get("cache_key")
	if len(res.Breakpoints) == 0 || who == "" {
		return
	}
	key := label + "\x00" + res.Variant + "\x00" + who
	if s.prefixes.changed(key, res.CachePrefix()) {
		s.metrics.cachePrefixChanges.WithLabelValues(label, res.Variant).Inc()
	}
}
