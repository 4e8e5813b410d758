package gitlib

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/promptsmith/promptsmith/engine"
)

// Cache loads each library once, by its Key: labels whose commits hold
// the same library files (a tag and the branch it was cut from, before
// the branch moves on) share one loaded library, and moving a label to
// such a commit loads nothing. Every library of a Cache is loaded with
// the options it was made with. It is safe for concurrent use.
//
// Sharing here is by library: two commits that differ in one variant
// load two libraries. Give the cache engine.ShareVariants for their
// equal variants to load once (package labels does). VariantKey tells
// which variants two trees hold equal (render diff renders only the
// others).
type Cache struct {
	opts []engine.Option
	mu   sync.Mutex
	libs map[string]*engine.Library
	// loads counts the libraries loaded, for a server's metric and for
	// tests that hold sharing to what it saves.
	loads atomic.Int64
}

// NewCache returns an empty cache that loads libraries with opts.
func NewCache(opts ...engine.Option) *Cache {
	return &Cache{opts: opts, libs: map[string]*engine.Library{}}
}

// Library returns the tree's library, loading it when no tree with the
// same Key was loaded before. A library that fails to load is not kept.
func (c *Cache) Library(ctx context.Context, t *Tree) (*engine.Library, error) {
	key := t.Key()
	c.mu.Lock()
	lib := c.libs[key]
	c.mu.Unlock()
	if lib != nil {
		return lib, nil
	}
	c.loads.Add(1)
	lib, err := t.Load(ctx, c.opts...)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.libs[key]; prev != nil {
		return prev, nil // loaded meanwhile by another caller
	}
	c.libs[key] = lib
	return lib, nil
}

// Loads is how many times the cache has loaded a library, those that
// failed included: what it was asked for less what it shared.
func (c *Cache) Loads() int64 { return c.loads.Load() }

// Forget drops the libraries whose keys keep does not accept: those no
// label serves any more.
func (c *Cache) Forget(keep func(key string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.libs {
		if !keep(key) {
			delete(c.libs, key)
		}
	}
}
