package manifest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// withFractions adds to te (nil when decoding succeeded) a type error for
// every number with a fraction, or infinite, where prompt.yaml takes a
// whole number: yaml.v3 would truncate max_bytes: 1.5 to 1 without a word.
// The errors are worded as yaml.v3 words its own, so that yamlError says
// them all alike and in line order. It returns te, or nil if there is none.
func withFractions(doc *yaml.Node, te *yaml.TypeError) error {
	if doc == nil {
		return typeErrorOrNil(te)
	}
	var found []string
	fractions(doc, reflect.TypeOf(Manifest{}), &found, 0)
	if len(found) == 0 {
		return typeErrorOrNil(te)
	}
	if te == nil {
		te = &yaml.TypeError{}
	}
	te.Errors = append(te.Errors, found...)
	slices.SortStableFunc(te.Errors, func(a, b string) int { return errorLine(a) - errorLine(b) })
	return te
}

// typeErrorOrNil keeps a nil *yaml.TypeError from becoming a non-nil error.
func typeErrorOrNil(te *yaml.TypeError) error {
	if te == nil {
		return nil
	}
	return te
}

// fractions walks n beside the Go type it decodes into, as yaml.v3 does,
// and notes each float scalar that lands in an int without being whole.
func fractions(n *yaml.Node, t reflect.Type, found *[]string, depth int) {
	if depth > 64 {
		return
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && isInt(t.Kind()):
		var f float64
		if n.Decode(&f) == nil && (math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f)) {
			*found = append(*found, fmt.Sprintf("line %d: cannot unmarshal !!float `%s` into %s", n.Line, n.Value, t))
		}
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for _, c := range n.Content {
			fractions(c, t.Elem(), found, depth+1)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 1; i < len(n.Content); i += 2 {
			fractions(n.Content[i], t.Elem(), found, depth+1)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		for i := 1; i < len(n.Content); i += 2 {
			key := n.Content[i-1].Value
			if key == "<<" && n.Content[i-1].ShortTag() == "!!merge" {
				// A merge: the mapping, or each of a list of them, is
				// decoded into t itself.
				v := n.Content[i]
				if v.Kind == yaml.AliasNode && v.Alias != nil {
					v = v.Alias
				}
				if v.Kind == yaml.SequenceNode {
					for _, c := range v.Content {
						fractions(c, t, found, depth+1)
					}
				} else {
					fractions(v, t, found, depth+1)
				}
				continue
			}
			if f, ok := yamlField(t, key); ok {
				fractions(n.Content[i], f.Type, found, depth+1)
			}
		}
	}
}

func isInt(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64
}

// yamlField is the field of struct t that the YAML key decodes into.
func yamlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// errorLine is the line a yaml.v3 type error names, or 0.
func errorLine(msg string) int {
	if sm := yamlLine.FindStringSubmatch(msg); sm != nil {
		n, _ := strconv.Atoi(sm[1])
		return n
	}
	return 0
}
