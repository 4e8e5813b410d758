package input

import (
	"bytes"
	"strconv"

	"github.com/promptsmith/promptsmith/engine/pointer"
	"gopkg.in/yaml.v3"
)

func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func parent(p string) string { return pointer.Parent(p) }

// indexPositions maps the pointer of every value in data to the byte offset
// of its key (or, for array elements and the root, of the value).
func indexPositions(data []byte) map[string]int {
	idx := map[string]int{}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		p := &jsonParser{data: data, pos: len(data) - len(trimmed), index: idx, maxDepth: maxDepth}
		p.value(0)
		return idx
	}
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || n.Kind == 0 {
		return idx
	}
	offsets := lineOffsets(data)
	at := func(line, col int) int {
		if line-1 < len(offsets) {
			return offsets[line-1] + col - 1
		}
		return len(data)
	}
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, ptr string, line, col int)
	walk = func(n *yaml.Node, ptr string, line, col int) {
		if seen[n] { // aliases: each node once
			return
		}
		seen[n] = true
		idx[ptr] = at(line, col)
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) > 0 {
				walk(n.Content[0], ptr, n.Content[0].Line, n.Content[0].Column)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				walk(n.Content[i+1], pointer.Append(ptr, k.Value), k.Line, k.Column)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, pointer.Index(ptr, i), c.Line, c.Column)
			}
		}
	}
	walk(&n, "", 1, 1)
	return idx
}

func lineOffsets(data []byte) []int {
	offs := []int{0}
	for i, c := range data {
		if c == '\n' {
			offs = append(offs, i+1)
		}
	}
	return offs
}

// WalkStrings calls fn for every string in the tree, object keys included
// (with the path of the value they name), with the tokens of its path;
// pointer.Join turns them into a JSON pointer when one is needed.
func WalkStrings(v any, fn func(path []string, s string)) {
	var path []string
	var walk func(v any)
	walk = func(v any) {
		switch c := v.(type) {
		case string:
			fn(path, c)
		case map[string]any:
			for k, e := range c {
				path = append(path, k)
				fn(path, k) // a key is text the templates may print too
				walk(e)
				path = path[:len(path)-1]
			}
		case []any:
			for i, e := range c {
				path = append(path, strconv.Itoa(i))
				walk(e)
				path = path[:len(path)-1]
			}
		}
	}
	walk(v)
}
