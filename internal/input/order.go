package input

import (
	"reflect"
	"slices"
	"sync"
)

// KeyOrder remembers the order in which objects' keys were written. Go maps
// forget it, but prompts must not: a service payload is shown with its keys
// as the caller wrote them, as a TypeScript Record iterates them.
//
// An entry is keyed by the map's identity and lives exactly as long as the
// Document that recorded it: the Document holds the map, so its address
// cannot be given to another map while the entry stands, and Release removes
// the entry before letting the map go. A KeyOrder belongs to a Library (for
// its renders) or to one Document; none is global.
//
// A render records a few dozen objects and reads them back many times from
// one goroutine, and a KeyOrder is reused from render to render: a map
// under a read-write lock keeps its buckets between them, where a sync.Map
// allocated a node for every object recorded.
type KeyOrder struct {
	mu sync.RWMutex
	m  map[uintptr][]string
}

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

// Keys returns the keys of m in the order they were written when it was
// recorded, and sorted otherwise (maps a template or a Go caller built),
// which is still deterministic. A nil KeyOrder sorts every map.
func (o *KeyOrder) Keys(m map[string]any) []string {
	if o != nil {
		if keys, ok := o.recorded(m); ok && len(keys) == len(m) && allPresent(keys, m) {
			return keys
		}
	}
	return sortedKeys(m)
}

// Len is the number of objects whose order is recorded.
func (o *KeyOrder) Len() int {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return len(o.m)
}

func (o *KeyOrder) recorded(m map[string]any) ([]string, bool) {
	o.mu.RLock()
	keys, ok := o.m[mapID(m)]
	o.mu.RUnlock()
	return keys, ok
}

func (o *KeyOrder) store(m map[string]any, keys []string) {
	o.mu.Lock()
	if o.m == nil {
		o.m = map[uintptr][]string{}
	}
	o.m[mapID(m)] = keys
	o.mu.Unlock()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func allPresent(keys []string, m map[string]any) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// Keys returns an object's keys in the document's order.
func (d *Document) Keys(m map[string]any) []string { return d.order.Keys(m) }

// Order is the KeyOrder the document records into.
func (d *Document) Order() *KeyOrder { return d.order }

// Record sets the key order of m, an object of this document.
func (d *Document) Record(m map[string]any, keys []string) {
	if d.order == nil {
		return
	}
	d.order.store(m, keys)
	d.held = append(d.held, m)
}

// AppendKey moves key to the end of m's order: for a key set after decoding
// (a schema default, an id). It reads the order as recorded, since once the
// key is in m, Keys would no longer trust it.
func (d *Document) AppendKey(m map[string]any, key string) {
	keys, ok := d.order.recorded(m)
	if !ok {
		keys = sortedKeys(m) // not decoded here: sorted, the key included
	}
	out := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		if k != key {
			out = append(out, k)
		}
	}
	d.Record(m, append(out, key))
}

// Release forgets the key order of every object of the document. A
// document's values must not be iterated for their order after it.
func (d *Document) Release() {
	if d.order != nil && len(d.held) > 0 {
		d.order.mu.Lock()
		for _, m := range d.held {
			delete(d.order.m, mapID(m))
		}
		d.order.mu.Unlock()
	}
	d.held = nil
}

// Copy deep-copies v, whose objects' order from knows, into the document:
// the copy is the document's own and keeps that order.
func (d *Document) Copy(v any, from *KeyOrder) any {
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		keys := from.Keys(c)
		for _, k := range keys {
			m[k] = d.Copy(c[k], from)
		}
		d.Record(m, keys)
		return m
	case []any:
		l := make([]any, len(c))
		for i, e := range c {
			l[i] = d.Copy(e, from)
		}
		return l
	}
	return v
}

// Delete removes key from the object m of the document, keeping the order
// of the others.
func (d *Document) Delete(m map[string]any, key string) {
	keys := slices.DeleteFunc(slices.Clone(d.Keys(m)), func(k string) bool { return k == key })
	delete(m, key)
	d.Record(m, keys)
}
