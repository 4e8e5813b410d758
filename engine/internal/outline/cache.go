package outline

import (
	"crypto/sha256"
	"sync"
)

// PathCache remembers the SectionPaths of recent documents by their hash. A
// parent that delegates to several subagents sends the same prompt each
// time, and parsing a 1 MiB prompt costs far more than hashing it. A
// variant owns one; it is safe for concurrent use.
type PathCache struct {
	mu      sync.Mutex
	entries map[[32]byte][]string
}

const pathCacheSize = 64

// Get returns the cached paths of text, or computes and caches them.
func (c *PathCache) Get(text string, compute func() []string) []string {
	key := sha256.Sum256([]byte(text))
	c.mu.Lock()
	paths, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return paths
	}
	paths = compute()
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= pathCacheSize {
		c.entries = map[[32]byte][]string{} // start over rather than track recency
	}
	c.entries[key] = paths
	c.mu.Unlock()
	return paths
}

// Len is the number of documents whose paths are cached.
func (c *PathCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
