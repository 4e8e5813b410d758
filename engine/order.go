package engine

import (
	"reflect"
	"slices"
	"sync"
)

// Go maps forget the order of their keys, but prompts must not: a service
// payload is shown with its keys as the caller wrote them, and a TypeScript
// Record is iterated in insertion order. Decoding records each object's key
// order here, keyed by the map's identity, and the template functions that
// iterate objects (entries, keys, values, json) consult it. Entries live only
// while a render uses them (see document.release); maps without an entry, such
// as those a Go caller builds, are iterated in sorted order, which is still
// deterministic.
var keyOrder sync.Map // uintptr → []string

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

// orderedKeys returns the keys of m in input order when known, else sorted.
func orderedKeys(m map[string]any) []string {
	if v, ok := keyOrder.Load(mapID(m)); ok {
		keys := v.([]string)
		if len(keys) == len(m) && allPresent(keys, m) {
			return keys
		}
	}
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

// orderRecorder registers key orders for one document and removes them again.
// It holds every map it registered, so that none can be freed, and its
// address given to another render's map, while the entry stands.
type orderRecorder struct{ maps []map[string]any }

func (r *orderRecorder) record(m map[string]any, keys []string) {
	keyOrder.Store(mapID(m), keys)
	r.maps = append(r.maps, m)
}

// keep makes the recorded orders permanent, for documents that live as long
// as the library (schemas).
func (r *orderRecorder) keep() { r.maps = nil }

// appendKey adds a key that was set after decoding (a schema default, an id)
// to the end of m's recorded order. It reads the order as recorded: once
// the key is in m, orderedKeys would no longer trust it.
func (r *orderRecorder) appendKey(m map[string]any, key string) {
	var keys []string
	if v, ok := keyOrder.Load(mapID(m)); ok {
		keys = v.([]string)
	} else {
		keys = orderedKeys(m) // not decoded here: sorted, the key included
	}
	out := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		if k != key {
			out = append(out, k)
		}
	}
	r.record(m, append(out, key))
}

func (r *orderRecorder) release() {
	for _, m := range r.maps {
		keyOrder.Delete(mapID(m))
	}
	r.maps = nil
}
