package lsp

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The place of the cursor in a YAML file (an example input, a manifest),
// as a path of keys ("-" for an item of a list) and whether a key or a
// value is being typed. The file is usually valid but for the line being
// typed: that line is replaced by a marker the parser can read, and the
// marker found in the tree.

const marker = "__promptsmith_cursor__"

type yamlPlace struct {
	path   []string // keys from the root to the mapping (or list) being typed in
	key    string   // for a value: its key
	value  bool     // a value is typed (after "key: " or "- ")
	prefix string   // what is typed of it so far
	start  int      // the offset where the typed word starts
}

// yamlPlaceAt finds the place at off; ok is false when the rest of the
// file does not parse.
func yamlPlaceAt(text string, off int) (yamlPlace, bool) {
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	lineEnd := len(text)
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		lineEnd = off + i
	}
	before := text[lineStart:off]
	lead := len(before) - len(strings.TrimLeft(before, " "))
	rest := before[lead:]
	dashes := ""
	for strings.HasPrefix(rest, "- ") {
		dashes += "- "
		rest = strings.TrimLeft(rest[2:], " ")
	}
	var p yamlPlace
	var line string
	indent := before[:lead]
	if k, v, ok := strings.Cut(rest, ":"); ok && !strings.ContainsAny(k, "\"'{[") {
		p.value, p.key = true, strings.TrimSpace(k)
		p.prefix = strings.TrimLeft(v, " ")
		line = indent + dashes + k + ": " + marker
	} else if dashes != "" && rest == "" {
		p.value = true // an item of a list of values, or the first key of an object item
		line = indent + dashes + marker
	} else {
		p.prefix = rest
		line = indent + dashes + marker + ": ~"
	}
	p.start = off - len(p.prefix)
	doc := text[:lineStart] + line + text[lineEnd:]
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil || len(root.Content) == 0 {
		return p, false
	}
	path, found := findMarker(root.Content[0], nil)
	if !found {
		return p, false
	}
	if p.value && p.key != "" && len(path) > 0 {
		path = path[:len(path)-1] // the key's own step: the place is its mapping
	}
	p.path = path
	return p, true
}

// findMarker returns the path to the collection that holds the marker.
func findMarker(n *yaml.Node, path []string) ([]string, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == marker {
				return path, true
			}
			if v.Kind == yaml.ScalarNode && v.Value == marker {
				return append(path, k.Value), true
			}
			if p, ok := findMarker(v, append(path, k.Value)); ok {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind == yaml.ScalarNode && item.Value == marker {
				return append(path, "-"), true
			}
			if p, ok := findMarker(item, append(path, "-")); ok {
				return p, true
			}
		}
	}
	return nil, false
}

// keyLine finds the key at the end of a path in a YAML file: the 1-based
// line and column of the key, for a definition or a diagnostic.
func keyLine(text string, path []string) (line, col int, ok bool) {
	var root yaml.Node
	if yaml.Unmarshal([]byte(text), &root) != nil || len(root.Content) == 0 {
		return 0, 0, false
	}
	n := root.Content[0]
	var at *yaml.Node
	for _, step := range path {
		at = nil
		if n.Kind != yaml.MappingNode {
			return 0, 0, false
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == step {
				at, n = n.Content[i], n.Content[i+1]
				break
			}
		}
		if at == nil {
			return 0, 0, false
		}
	}
	if at == nil {
		return 0, 0, false
	}
	return at.Line, at.Column, true
}

// yamlKeyAt is the path of keys ("-" for list items) to the key under the
// cursor (1-based line and byte column), the key last; ok is false when the
// cursor is on no key or the file does not parse.
func yamlKeyAt(text string, line, col int) ([]string, bool) {
	var root yaml.Node
	if yaml.Unmarshal([]byte(text), &root) != nil || len(root.Content) == 0 {
		return nil, false
	}
	var walk func(n *yaml.Node, path []string) ([]string, bool)
	walk = func(n *yaml.Node, path []string) ([]string, bool) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Line == line && col >= k.Column && col <= k.Column+len(k.Value) {
					return append(path, k.Value), true
				}
				if p, ok := walk(n.Content[i+1], append(path, k.Value)); ok {
					return p, true
				}
			}
		case yaml.SequenceNode:
			for _, item := range n.Content {
				if p, ok := walk(item, append(path, "-")); ok {
					return p, true
				}
			}
		}
		return nil, false
	}
	return walk(root.Content[0], nil)
}
