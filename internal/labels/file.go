package labels

import (
	"errors"
	"fmt"
	"iter"
	"strconv"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/regular"
	"gopkg.in/yaml.v3"
)

// ReadFile reads a labels file, YAML of this form (labels in the
// order the file lists them):
//
//	default: production
//	labels:
//	  production: refs/tags/prod
//	  staging: refs/heads/main
//
// It is read node by node rather than into a struct so that every error
// names the file and line at fault, a key given twice included (yaml.v3
// keeps the last one silently when decoding into a node).
func ReadFile(path string) (Config, error) {
	data, err := regular.ReadFile(path, 0)
	if err != nil {
		e := &engine.Error{Kind: engine.KindUsage, Flag: "--labels-file", Path: path,
			Reason: fmt.Sprintf("cannot read the labels file %s: %v", path, err), Err: err}
		if errors.Is(err, regular.ErrNotRegular) {
			e.Hints = []string{"a labels file is a regular file: write what the pipe or device holds to a file, and name that"}
		}
		return Config{}, e
	}
	return parseFile(path, data)
}

// parseFile reads a labels file's bytes; path names it in errors.
func parseFile(path string, data []byte) (Config, error) {
	at := func(line int) string { return path + ":" + strconv.Itoa(line) }
	fail := func(line int, hint, format string, args ...any) (Config, error) {
		return Config{}, &engine.Error{Kind: engine.KindUsage, Position: at(line),
			Reason: fmt.Sprintf(format, args...), Hints: []string{hint}}
	}
	const form = "a labels file is YAML: labels: {production: refs/tags/prod, staging: refs/heads/main} and default: production"
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, reason := input.YAMLErrorLine(data, err) // the line that breaks it, not where its construct starts
		return fail(max(line, 1), form, "the labels file is not YAML: %s", reason)
	}
	var cfg Config
	if len(doc.Content) == 0 {
		return cfg, nil // empty: no labels, which Config.Check says
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return fail(top.Line, form, "the labels file is not a mapping of labels: and default:")
	}
	for p := range pairsOf(top) {
		if p.repeats > 0 {
			return fail(p.key.Line, "give each key once", "%s: is given twice (first at line %d)", p.key.Value, p.repeats)
		}
		switch p.key.Value {
		case "default":
			if p.val.Kind != yaml.ScalarNode || p.val.Value == "" {
				return fail(p.val.Line, "default: names one label, as production", "default: is not a label name")
			}
			cfg.Default, cfg.defaultAt = p.val.Value, at(p.val.Line)
		case "labels":
			if p.val.Kind != yaml.MappingNode {
				return fail(p.val.Line, form, "labels: is not a mapping of names to refs")
			}
			for l := range pairsOf(p.val) {
				name, ref := l.key, l.val
				if l.repeats > 0 {
					return fail(name.Line, "give each label once", "label %q is given twice (first at line %d)", name.Value, l.repeats)
				}
				if ref.Kind != yaml.ScalarNode {
					return fail(ref.Line, form, "label %q: its ref is not a string", name.Value)
				}
				if err := checkPair(name.Value, ref.Value); err != nil {
					return fail(name.Line, "a label is NAME: REF, a name of letters, digits, '.', '_' or '-', and a branch, tag or commit", "%s", err.Error())
				}
				cfg.Labels = append(cfg.Labels, Label{Name: name.Value, Ref: ref.Value})
			}
		default:
			return fail(p.key.Line, form, "unknown key %s: a labels file holds labels: and default:", p.key.Value)
		}
	}
	return cfg, nil
}

// mappingPair is a key of a YAML mapping and its value; repeats is the
// line at which the key was first given, where this one repeats it, or 0.
type mappingPair struct {
	key, val *yaml.Node
	repeats  int
}

// pairsOf are the pairs of a mapping, in the order written.
func pairsOf(m *yaml.Node) iter.Seq[mappingPair] {
	return func(yield func(mappingPair) bool) {
		seen := map[string]int{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			key := m.Content[i]
			p := mappingPair{key: key, val: m.Content[i+1], repeats: seen[key.Value]}
			if p.repeats == 0 {
				seen[key.Value] = key.Line
			}
			if !yield(p) {
				return
			}
		}
	}
}
