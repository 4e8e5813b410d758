package engine

import (
	"bytes"
	"fmt"
	"math"
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
	// YAML only: values expanded so far, and the aliases being expanded.
	yamlValues int
	aliasing   map[*yaml.Node]bool
	positions  map[string]int // pointer → byte offset, built on the first error
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
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is out of range: write a smaller number", s)
	}
	return finite(f)
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

// maxYAMLValues bounds how many values a YAML input may expand to. Aliases
// let a few bytes stand for billions of values ("billion laughs"); no prompt
// input needs more than this.
const maxYAMLValues = 1_000_000

func (d *document) yamlValue(n *yaml.Node, ptr string) (any, error) {
	d.yamlValues++
	if d.yamlValues > maxYAMLValues {
		return nil, d.yamlErr(n, ptr, "the YAML expands to more than %d values through its aliases (*name)", maxYAMLValues).
			hint("write the values out, or use fewer nested aliases")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return d.yamlValue(n.Content[0], ptr)
	case yaml.AliasNode:
		if d.aliasing[n.Alias] {
			return nil, d.yamlErr(n, ptr, "alias *%s refers to a value that contains it", n.Value).
				hint("an alias cannot be used inside the value it names")
		}
		if d.aliasing == nil {
			d.aliasing = map[*yaml.Node]bool{}
		}
		d.aliasing[n.Alias] = true
		defer delete(d.aliasing, n.Alias)
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
	v, err := yamlScalar(n)
	if err != nil {
		return nil, d.yamlErr(n, ptr, "%v", err)
	}
	return v, nil
}

func (d *document) yamlErr(n *yaml.Node, ptr, format string, args ...any) *Error {
	return &Error{Kind: KindInput, Field: ptr, Position: fmt.Sprintf("%s:%d:%d", d.in.Name, n.Line, n.Column),
		Reason: fmt.Sprintf(format, args...)}
}

// yamlMapping fills m from a mapping node. Keys written in the mapping win
// over keys merged in with <<, wherever the merge stands; of several merged
// mappings the first wins, as YAML's merge key says. A key written twice is
// refused, as in JSON input: which one was meant is a guess.
func (d *document) yamlMapping(n *yaml.Node, ptr string, m map[string]any, keys *[]string) error {
	explicit := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		if kn.Tag == "!!merge" {
			continue
		}
		if explicit[kn.Value] {
			return d.yamlErr(kn, ptr+"/"+escapePointer(kn.Value), "key %q appears twice", kn.Value).
				hint("keep one of the two entries")
		}
		explicit[kn.Value] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Tag == "!!merge" {
			if err := d.yamlMerge(kn, vn, ptr, m, keys, explicit); err != nil {
				return err
			}
			continue
		}
		k := kn.Value
		v, err := d.yamlValue(vn, ptr+"/"+escapePointer(k))
		if err != nil {
			return err
		}
		*keys = append(*keys, k)
		m[k] = v
	}
	return nil
}

// yamlMerge adds the keys of a merged mapping, or of a list of them, that the
// mapping has not got yet.
func (d *document) yamlMerge(kn, vn *yaml.Node, ptr string, m map[string]any, keys *[]string, explicit map[string]bool) error {
	sources := []*yaml.Node{vn}
	if vn.Kind == yaml.SequenceNode {
		sources = vn.Content
	}
	for _, src := range sources {
		v, err := d.yamlValue(src, ptr)
		if err != nil {
			return err
		}
		merged, ok := v.(map[string]any)
		if !ok {
			return d.yamlErr(kn, ptr, "a merge key (<<) must refer to a mapping or a list of mappings")
		}
		for _, k := range orderedKeys(merged) {
			if _, have := m[k]; have || explicit[k] {
				continue
			}
			m[k] = merged[k]
			*keys = append(*keys, k)
		}
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
			if err = n.Decode(&f); err != nil {
				return nil, err
			}
			return finite(f)
		}
		return i, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		return finite(f)
	}
	return n.Value, nil // strings, timestamps, binary: as written
}

// finite refuses infinities and NaN, which JSON cannot carry and JSON Schema
// cannot compare, and turns whole numbers into integers, so that 2.0 and 1e3
// are the integers a schema's "integer" accepts them as.
func finite(f float64) (any, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("%v is not a number a prompt input can hold: write a finite number", f)
	}
	if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
		return int64(f), nil
	}
	return f, nil
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

// position finds where the value at a JSON pointer is written in the input,
// as name:line:col, for error messages. The input is parsed again for this,
// once per document and only when an error needs a position.
func (d *document) position(ptr string) string {
	if d.positions == nil {
		d.positions = indexPositions(d.in.Data)
	}
	// The value itself, or the nearest enclosing one that is written down
	// (a missing field is reported where its object is).
	for p := ptr; ; p = parentPointer(p) {
		if off, ok := d.positions[p]; ok {
			line, col := lineCol(d.in.Data, off)
			return fmt.Sprintf("%s:%d:%d", d.in.Name, line, col)
		}
		if p == "" {
			return ""
		}
	}
}

func parentPointer(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

// Has reports whether the input holds a value at the JSON pointer.
func Has(in Input, ptr string) bool {
	d, err := decode(in)
	if err != nil {
		return false
	}
	defer d.release()
	_, ok := lookup(d.root, ptr)
	return ok
}

// PositionOf is position for callers that hold an input but no document.
func PositionOf(in Input, ptr string) string {
	return (&document{in: in}).position(ptr)
}

// indexPositions maps the pointer of every value in data to the byte offset
// of its key (or, for array elements and the root, of the value).
func indexPositions(data []byte) map[string]int {
	idx := map[string]int{}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		p := &jsonParser{data: data, pos: len(data) - len(trimmed), doc: &document{}, index: idx}
		p.value(0)
		p.doc.release()
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
				walk(n.Content[i+1], ptr+"/"+escapePointer(k.Value), k.Line, k.Column)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, ptr+"/"+strconv.Itoa(i), c.Line, c.Column)
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
