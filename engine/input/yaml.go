package input

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine/pointer"
	"github.com/promptsmith/promptsmith/engine/problem"
	"gopkg.in/yaml.v3"
)

func (d *Document) decodeYAML(data []byte) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, yamlError(d.Name, err)
	}
	if n.Kind == 0 { // empty document
		return map[string]any{}, nil
	}
	return d.yamlValue(&n, "", 0)
}

// maxYAMLValues bounds how many values a YAML input may expand to. Aliases
// let a few bytes stand for billions of values ("billion laughs"); no prompt
// input needs more than this.
const maxYAMLValues = 1_000_000

func (d *Document) yamlValue(n *yaml.Node, ptr string, depth int) (any, error) {
	if depth > d.maxDepth {
		e := tooDeep(ptr, d.maxDepth)
		e.Position = fmt.Sprintf("%s:%d:%d", d.Name, n.Line, n.Column)
		return nil, e
	}
	d.yamlValues++
	if d.yamlValues > maxYAMLValues {
		return nil, d.yamlErr(n, ptr, "the YAML expands to more than %d values through its aliases (*name)", maxYAMLValues).
			Hint("write the values out, or use fewer nested aliases")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return d.yamlValue(n.Content[0], ptr, depth)
	case yaml.AliasNode:
		if d.aliasing[n.Alias] {
			return nil, d.yamlErr(n, ptr, "alias *%s refers to a value that contains it", n.Value).
				Hint("an alias cannot be used inside the value it names")
		}
		if d.aliasing == nil {
			d.aliasing = map[any]bool{}
		}
		d.aliasing[n.Alias] = true
		defer delete(d.aliasing, n.Alias)
		return d.yamlValue(n.Alias, ptr, depth)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.yamlValue(c, pointer.Index(ptr, i), depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		m := map[string]any{}
		var keys []string
		if err := d.yamlMapping(n, ptr, m, &keys, depth); err != nil {
			return nil, err
		}
		d.Record(m, keys)
		return m, nil
	}
	v, err := yamlScalar(n)
	if err != nil {
		return nil, d.yamlErr(n, ptr, "%v", err)
	}
	return v, nil
}

func (d *Document) yamlErr(n *yaml.Node, ptr, format string, args ...any) *problem.Error {
	return &problem.Error{Kind: problem.KindInput, Field: ptr, Position: fmt.Sprintf("%s:%d:%d", d.Name, n.Line, n.Column),
		Reason: fmt.Sprintf(format, args...)}
}

// yamlMapping fills m from a mapping node. Keys written in the mapping win
// over keys merged in with <<, wherever the merge stands; of several merged
// mappings the first wins, as YAML's merge key says. A key written twice is
// refused, as in JSON input: which one was meant is a guess.
func (d *Document) yamlMapping(n *yaml.Node, ptr string, m map[string]any, keys *[]string, depth int) error {
	explicit := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		if kn.Tag == "!!merge" {
			continue
		}
		if explicit[kn.Value] {
			return d.yamlErr(kn, pointer.Append(ptr, kn.Value), "key %q appears twice", kn.Value).
				Hint("keep one of the two entries")
		}
		explicit[kn.Value] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Tag == "!!merge" {
			if err := d.yamlMerge(kn, vn, ptr, m, keys, explicit, depth); err != nil {
				return err
			}
			continue
		}
		k := kn.Value
		v, err := d.yamlValue(vn, pointer.Append(ptr, k), depth+1)
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
func (d *Document) yamlMerge(kn, vn *yaml.Node, ptr string, m map[string]any, keys *[]string, explicit map[string]bool, depth int) error {
	sources := []*yaml.Node{vn}
	if vn.Kind == yaml.SequenceNode {
		sources = vn.Content
	}
	for _, src := range sources {
		v, err := d.yamlValue(src, ptr, depth)
		if err != nil {
			return err
		}
		merged, ok := v.(map[string]any)
		if !ok {
			return d.yamlErr(kn, ptr, "a merge key (<<) must refer to a mapping or a list of mappings")
		}
		for _, k := range d.Keys(merged) {
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

// yamlError places a YAML syntax error. yaml.v3 carries the line only in its
// message ("yaml: line N: msg"); a type error carries it in each of its
// Errors, read the same way.
func yamlError(name string, err error) *problem.Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	pos := name
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if _, aerr := strconv.Atoi(num); aerr == nil {
				pos, msg = name+":"+num, tail
			}
		}
	}
	return (&problem.Error{Kind: problem.KindInput, Position: pos, Reason: "invalid YAML: " + msg, Err: err}).
		Hint("check the indentation and quoting at that line; JSON input must start with '{'")
}
