package lsp

import (
	"encoding/json"
	"strings"
)

// manifestSchema reads the library's templates/manifest.schema.json as
// written: enough of JSON Schema to list the keys and values an author may
// write at a place of prompt.yaml (properties, items, additionalProperties
// and local $refs).
type manifestSchema struct {
	root map[string]any
}

func loadManifestSchema(sn *snapshot) (manifestSchema, bool) {
	data, err := sn.files.ReadFile("templates/manifest.schema.json")
	if err != nil {
		return manifestSchema{}, false
	}
	var root map[string]any
	if json.Unmarshal(data, &root) != nil {
		return manifestSchema{}, false
	}
	return manifestSchema{root: root}, true
}

// at is the schema at a path of keys ("-" for a list item), or nil.
func (m manifestSchema) at(path []string) map[string]any {
	n := m.deref(m.root)
	for _, step := range path {
		if n == nil {
			return nil
		}
		if step == "-" {
			n = m.deref(asObject(n["items"]))
			continue
		}
		if props := asObject(n["properties"]); props != nil && props[step] != nil {
			n = m.deref(asObject(props[step]))
			continue
		}
		n = m.deref(asObject(n["additionalProperties"]))
	}
	return n
}

func (m manifestSchema) deref(n map[string]any) map[string]any {
	for range 8 {
		ref, ok := n["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return n
		}
		at := any(m.root)
		for _, part := range strings.Split(ref[2:], "/") {
			at = asObject(at)[part]
		}
		n = asObject(at)
	}
	return n
}

// keys lists the properties of a schema, with their descriptions.
func (m manifestSchema) keys(n map[string]any) [][2]string {
	props := asObject(n["properties"])
	var out [][2]string
	for k, v := range props {
		out = append(out, [2]string{k, describe(m.deref(asObject(v)))})
	}
	return out
}

func describe(n map[string]any) string {
	d, _ := n["description"].(string)
	return d
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
