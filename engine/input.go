package engine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Input is a document to render: JSON or YAML bytes and a name for error
// positions ("stdin", a file path, "example basic").
type Input struct {
	Name string
	Data []byte
}

// document is a decoded input: a tree of map[string]any, []any, string, int64,
// float64, bool and nil, whose objects' key order is recorded.
type document struct {
	in    Input
	root  map[string]any
	order orderRecorder
}

func (d *document) release() { d.order.release() }

// decode reads JSON when the input starts with '{', else YAML. Both give the
// same value tree; YAML timestamps stay strings so that validation and
// rendering see exactly what the caller wrote.
func decode(in Input) (*document, error) {
	d := &document{in: in}
	trimmed := bytes.TrimLeft(in.Data, " \t\r\n\ufeff")
	var root any
	var err error
	if len(trimmed) > 0 && trimmed[0] == '{' {
		root, err = d.decodeJSON(in.Data, len(in.Data)-len(trimmed))
	} else {
		root, err = d.decodeYAML(in.Data)
	}
	if err != nil {
		d.release()
		return nil, err
	}
	m, ok := root.(map[string]any)
	if !ok {
		d.release()
		return nil, (&Error{Kind: KindInput, Field: "/", Position: in.Name,
			Reason: fmt.Sprintf("the input must be an object, got %s", typeName(root))}).
			hint("pass a JSON object ({...}) or a YAML mapping (key: value)")
	}
	d.root = m
	return d, nil
}

func (d *document) decodeJSON(data []byte, start int) (any, error) {
	p := &jsonParser{data: data, pos: start, doc: d}
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if p.pos < len(data) {
			err = p.fail("unexpected data after the top-level value")
		}
	}
	if err != nil {
		line, col := lineCol(data, p.pos)
		pos := fmt.Sprintf("%s:%d:%d", d.in.Name, line, col)
		if ie, ok := err.(*Error); ok {
			ie.Position = pos
			return nil, ie
		}
		return nil, (&Error{Kind: KindInput, Position: pos, Field: p.pointer(), Reason: "invalid JSON: " + err.Error(), Err: err}).
			hint("fix the JSON syntax at that position (a missing comma, quote or brace is the usual cause)")
	}
	return v, nil
}

func number(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	return strconv.ParseFloat(s, 64)
}

func (d *document) decodeYAML(data []byte) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, yamlError(d.in.Name, err)
	}
	if n.Kind == 0 { // empty document
		return map[string]any{}, nil
	}
	return d.yamlValue(&n, "")
}

func (d *document) yamlValue(n *yaml.Node, ptr string) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return d.yamlValue(n.Content[0], ptr)
	case yaml.AliasNode:
		return d.yamlValue(n.Alias, ptr)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.yamlValue(c, ptr+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		m := map[string]any{}
		var keys []string
		if err := d.yamlMapping(n, ptr, m, &keys); err != nil {
			return nil, err
		}
		d.order.record(m, keys)
		return m, nil
	}
	return yamlScalar(n)
}

func (d *document) yamlMapping(n *yaml.Node, ptr string, m map[string]any, keys *[]string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Tag == "!!merge" {
			src := vn
			if src.Kind == yaml.AliasNode {
				src = src.Alias
			}
			if src.Kind != yaml.MappingNode {
				return &Error{Kind: KindInput, Field: ptr, Position: fmt.Sprintf("%s:%d:%d", d.in.Name, kn.Line, kn.Column),
					Reason: "a merge key (<<) must refer to a mapping"}
			}
			if err := d.yamlMapping(src, ptr, m, keys); err != nil {
				return err
			}
			continue
		}
		k := kn.Value
		v, err := d.yamlValue(vn, ptr+"/"+escapePointer(k))
		if err != nil {
			return err
		}
		if _, seen := m[k]; !seen {
			*keys = append(*keys, k)
		}
		m[k] = v
	}
	return nil
}

func yamlScalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		err := n.Decode(&b)
		return b, err
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			var f float64
			err = n.Decode(&f)
			return f, err
		}
		return i, nil
	case "!!float":
		var f float64
		err := n.Decode(&f)
		return f, err
	}
	return n.Value, nil // strings, timestamps, binary: as written
}

// yamlError turns yaml.v3's "yaml: line N: msg" into name:N: msg.
func yamlError(name string, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := name
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if _, aerr := strconv.Atoi(num); aerr == nil {
				pos, msg = name+":"+num, tail
			}
		}
	}
	return (&Error{Kind: KindInput, Position: pos, Reason: "invalid YAML: " + msg, Err: err}).
		hint("check the indentation and quoting at that line; JSON input must start with '{'")
}

func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// positionOf finds where the value at a JSON pointer is written in the input,
// for error messages. It parses the input again, so it is only used on errors.
func positionOf(in Input, ptr string) string {
	var n yaml.Node
	if err := yaml.Unmarshal(in.Data, &n); err != nil || n.Kind == 0 {
		return ""
	}
	cur := &n
	if cur.Kind == yaml.DocumentNode && len(cur.Content) > 0 {
		cur = cur.Content[0]
	}
	line, col := cur.Line, cur.Column
	for _, tok := range splitPointer(ptr) {
		next := (*yaml.Node)(nil)
		switch cur.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(cur.Content); i += 2 {
				if cur.Content[i].Value == tok {
					next = cur.Content[i+1]
					line, col = cur.Content[i].Line, cur.Content[i].Column
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(cur.Content) {
				next = cur.Content[i]
				line, col = next.Line, next.Column
			}
		}
		if next == nil {
			break
		}
		cur = next
	}
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", in.Name, line, col)
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64, int:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
