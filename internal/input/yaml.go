package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
	"gopkg.in/yaml.v3"
)

// decodeYAML reads a YAML document; text bounds the bytes of text its
// aliases may expand it to, and ctx the time they may take.
func (d *Document) decodeYAML(ctx context.Context, data []byte, text int) (any, error) {
	if v, ok := d.readYAML(data); ok {
		return v, nil // the reader takes no aliases: what it reads is written out
	}
	return d.decodeYAMLNodes(ctx, data, text)
}

// decodeYAMLNodes reads any YAML through yaml.v3's nodes.
func (d *Document) decodeYAMLNodes(ctx context.Context, data []byte, text int) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err == io.EOF {
		return map[string]any{}, nil // empty document
	} else if err != nil {
		return nil, yamlError(d.Name, d.Data, err)
	}
	if err := d.singleDocument(dec); err != nil {
		return nil, err
	}
	if text <= 0 {
		text = textBound(0, len(data))
	}
	y := &yamlDecoder{doc: d, ctx: ctx, maxText: text}
	return y.value(&n, 0)
}

// singleDocument refuses a YAML stream holding a second document after the
// first: only the first would be read, and the rest silently lost. A
// trailing "---" with nothing after it loses nothing, and is let through.
func (d *Document) singleDocument(dec *yaml.Decoder) error {
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			e := yamlError(d.Name, d.Data, err)
			e.Reason = "the input holds a second YAML document, which is not valid either: " + strings.TrimPrefix(e.Reason, "invalid YAML: ")
			e.Hints = []string{"send one document: remove the --- line and what follows it"}
			return e
		}
		if !emptyDocument(&next) {
			return (&problem.Error{Kind: problem.KindInput, Position: fmt.Sprintf("%s:%d", d.Name, next.Line),
				Reason: fmt.Sprintf("the input holds more than one YAML document: a second one starts at line %d", next.Line)}).
				Hint("send one document: remove the --- line and what follows it, or merge the documents into one")
		}
	}
}

func emptyDocument(n *yaml.Node) bool {
	if len(n.Content) == 0 {
		return true
	}
	c := n.Content[0]
	return len(n.Content) == 1 && c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null" && c.Value == ""
}

// maxYAMLValues bounds how many values a YAML input may expand to. Aliases
// let a few bytes stand for billions of values ("billion laughs"); no prompt
// input needs more than this. Below it the bound grows with the input
// (yamlValueBound), so that what a YAML input costs stays proportional to
// its size: 300 bytes of nested aliases cost 30 MB and 0.4 s of a render
// with the fixed bound alone.
const maxYAMLValues = 1_000_000

// yamlValueBound is how many values an input of n bytes may expand to:
// 10,000, or 4 for each of its bytes, up to maxYAMLValues. An input written
// out holds at most one value for every two bytes ("1,"); aliases may
// repeat what it holds a few times over, but not without end: each value
// costs a render the memory of a Go value, a hundred bytes and more.
func yamlValueBound(n int) int {
	return min(maxYAMLValues, max(10_000, 4*n))
}

// yamlDecoder turns a document's nodes into values.
type yamlDecoder struct {
	doc *Document
	ctx context.Context
	// values counts the values expanded so far, text the bytes of their
	// strings and keys, which maxText bounds; aliasing holds the aliases
	// being expanded.
	values, text, maxText int
	aliasing              map[*yaml.Node]bool
	path                  path // down to the current value, for errors
}

func (y *yamlDecoder) value(n *yaml.Node, depth int) (any, error) {
	if depth > y.doc.maxDepth {
		e := tooDeep(y.path.pointer(), y.doc.maxDepth)
		e.Position = y.position(n)
		return nil, e
	}
	y.values++
	if bound := yamlValueBound(len(y.doc.Data)); y.values > bound {
		return nil, y.fail(n, "the YAML expands to more than %d values through its aliases (*name), for %s of input", bound, phrase.Size(len(y.doc.Data))).
			Hint("write the values out, or use fewer nested aliases")
	}
	if y.values%1024 == 0 && y.ctx != nil {
		if err := y.ctx.Err(); err != nil {
			return nil, err
		}
	}
	if n.Kind == yaml.ScalarNode || n.Kind == yaml.MappingNode {
		if err := y.addText(n); err != nil {
			return nil, err
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return y.value(n.Content[0], depth)
	case yaml.AliasNode:
		if y.aliasing[n.Alias] {
			return nil, y.fail(n, "alias *%s refers to a value that contains it", phrase.Clip(n.Value, phrase.QuoteBytes)).
				Hint("an alias cannot be used inside the value it names")
		}
		if y.aliasing == nil {
			y.aliasing = map[*yaml.Node]bool{}
		}
		y.aliasing[n.Alias] = true
		defer delete(y.aliasing, n.Alias)
		return y.value(n.Alias, depth)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			y.path = append(y.path, step{index: i})
			v, err := y.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			y.path = y.path[:len(y.path)-1]
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		m := map[string]any{}
		var keys []string
		if err := y.mapping(n, m, &keys, depth); err != nil {
			return nil, err
		}
		y.doc.Record(m, keys)
		return m, nil
	}
	v, err := yamlScalar(n)
	if err != nil {
		e := problem.As(err)
		if e.Kind == problem.KindInternal { // yaml.v3's own error
			return nil, y.fail(n, "%v", err)
		}
		e.Field, e.Position = y.path.pointer(), y.position(n)
		return nil, e
	}
	if s, isStr := v.(string); isStr {
		if nt := checkText(s); nt != nil {
			e := nt.problem(y.path.pointer(), "string")
			e.Position = y.position(n)
			return nil, e
		}
	}
	return v, nil
}

// addText counts the text of a scalar, or of a mapping's keys, against
// the bound on what the document may expand to.
func (y *yamlDecoder) addText(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		y.text += len(n.Value)
	} else {
		for i := 0; i < len(n.Content); i += 2 {
			y.text += len(n.Content[i].Value)
		}
	}
	if y.text <= y.maxText {
		return nil
	}
	return y.fail(n, "the YAML expands to more than %s of text through its aliases (*name), %d times the input limit", phrase.Size(y.maxText), expansion).
		Hint("write the values out, or alias large values less often; a larger --max-input (the engine's Limits.InputBytes) raises this limit too")
}

func (y *yamlDecoder) position(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", y.doc.Name, n.Line, n.Column)
}

// fail is an input error at node n, naming the current value's pointer.
func (y *yamlDecoder) fail(n *yaml.Node, format string, args ...any) *problem.Error {
	return &problem.Error{Kind: problem.KindInput, Field: y.path.pointer(), Position: y.position(n),
		Reason: fmt.Sprintf(format, args...)}
}

// mapping fills m from a mapping node. Keys written in the mapping win
// over keys merged in with <<, wherever the merge stands; of several merged
// mappings the first wins, as YAML's merge key says. A key written twice is
// refused, as in JSON input: which one was meant is a guess.
func (y *yamlDecoder) mapping(n *yaml.Node, m map[string]any, keys *[]string, depth int) error {
	explicit := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		if kn.Tag == "!!merge" {
			continue
		}
		if nt := checkText(kn.Value); nt != nil {
			e := nt.problem(y.path.pointer(), "key")
			e.Position = y.position(kn)
			return e
		}
		if explicit[kn.Value] {
			y.path = append(y.path, step{key: kn.Value, index: -1})
			return y.fail(kn, "key %s appears twice", phrase.Quote(kn.Value)).Hint("keep one of the two entries")
		}
		explicit[kn.Value] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Tag == "!!merge" {
			if err := y.merge(kn, vn, m, keys, explicit, depth); err != nil {
				return err
			}
			continue
		}
		k := kn.Value
		y.path = append(y.path, step{key: k, index: -1})
		v, err := y.value(vn, depth+1)
		if err != nil {
			return err
		}
		y.path = y.path[:len(y.path)-1]
		*keys = append(*keys, k)
		m[k] = v
	}
	return nil
}

// merge adds the keys of a merged mapping, or of a list of them, that the
// mapping has not got yet.
func (y *yamlDecoder) merge(kn, vn *yaml.Node, m map[string]any, keys *[]string, explicit map[string]bool, depth int) error {
	sources := []*yaml.Node{vn}
	if vn.Kind == yaml.SequenceNode {
		sources = vn.Content
	}
	for _, src := range sources {
		v, err := y.value(src, depth)
		if err != nil {
			return err
		}
		merged, ok := v.(map[string]any)
		if !ok {
			return y.fail(kn, "a merge key (<<) must refer to a mapping or a list of mappings")
		}
		for _, k := range y.doc.Keys(merged) {
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
		err := n.Decode(&i)
		if err == nil {
			return i, nil
		}
		var f float64
		if n.Decode(&f) == nil {
			return nil, outOfRange(n.Value) // a whole number, beyond int64's range
		}
		return nil, err
	case "!!float":
		if digits := strings.TrimLeft(n.Value, "+-"); digits != "" && strings.Trim(digits, "0123456789") == "" {
			// Written as an integer, resolved as a float: beyond int64,
			// where a float would round it into range.
			return nil, outOfRange(n.Value)
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		return finite(f, n.Value)
	}
	return n.Value, nil // strings, timestamps, binary: as written
}

// yamlError places a YAML syntax error. yaml.v3 carries the line only in its
// message ("yaml: line N: msg"); a type error carries it in each of its
// Errors, read the same way.
func yamlError(name string, data []byte, err error) *problem.Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	pos := name
	if te == nil {
		// yaml.v3 names the line the broken construct starts on; find the
		// line that breaks it.
		line, m := YAMLErrorLine(data, err)
		msg = m
		if line > 0 {
			pos = fmt.Sprintf("%s:%d", name, line)
		}
	} else if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if _, aerr := strconv.Atoi(num); aerr == nil {
				pos, msg = name+":"+num, tail
			}
		}
	}
	e := &problem.Error{Kind: problem.KindInput, Position: pos, Reason: "invalid YAML: " + msg, Err: err}
	if te == nil {
		line, _ := YAMLErrorLine(data, err)
		if advice := indentAdvice(data, line); advice != "" {
			e.Hint("%s", advice)
		}
	}
	return e.Hint("check the indentation and quoting at that line: the keys of one mapping start in one column, a list's items (- ) under their key; quote a value that holds \": \" or starts with a character YAML reserves ({, [, *, &, !, %%, @)")
}

// indentAdvice says what is wrong with the indentation of line (from 1) of
// a YAML document: a tab, or a column no line above it starts at; "" when
// neither.
func indentAdvice(data []byte, line int) string {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	at := lines[line-1]
	lead := at[:len(at)-len(strings.TrimLeft(at, " \t"))]
	if strings.Contains(lead, "\t") {
		return fmt.Sprintf("line %d is indented with a tab: YAML indents with spaces only", line)
	}
	if strings.TrimSpace(at) == "" {
		return ""
	}
	var cols []int
	for _, l := range lines[:line-1] {
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		c := len(l) - len(t) + 1
		if strings.HasPrefix(t, "- ") {
			// A list item's key stands after its dash.
			cols = append(cols, c+len(t)-len(strings.TrimLeft(t[1:], " ")))
		}
		cols = append(cols, c)
	}
	col := len(lead) + 1
	if len(cols) == 0 || slices.Contains(cols, col) {
		return ""
	}
	slices.Sort(cols)
	cols = slices.Compact(cols)
	var above []string
	for _, c := range cols {
		if c < col+4 {
			above = append(above, strconv.Itoa(c))
		}
	}
	return fmt.Sprintf("line %d starts at column %d, where no line above it starts (lines above start at columns %s): indent it as the key it belongs beside",
		line, col, strings.Join(above, ", "))
}
