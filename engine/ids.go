package engine

import (
	"encoding/hex"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/pointer"
)

// computeIDs derives each manifest id from a canonical encoding of the input
// fields it names: the same input gives the same id on every machine, in JSON
// or YAML, whatever the key order; any change to those fields gives another.
func (v *Variant) computeIDs(root map[string]any) map[string]string {
	if len(v.manifest.IDs) == 0 {
		return nil
	}
	ids := make(map[string]string, len(v.manifest.IDs))
	for name, spec := range v.manifest.IDs {
		c := input.NewCanonical()
		for _, ptr := range spec.Of {
			val, _ := pointer.Lookup(root, ptr)
			c.Value(ptr)
			c.Value(val)
		}
		n := spec.Length
		if n == 0 {
			n = 16
		}
		ids[name] = spec.Prefix + hex.EncodeToString(c.Sum())[:n]
	}
	return ids
}
