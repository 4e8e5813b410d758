// Package schema compiles a library's JSON Schemas (draft 2020-12) once and
// uses them three ways: to validate an input, to explain each violation as an
// error an author or caller can act on, and to fill in defaults.
//
// The compiled schemas are the one source of structure: $ref, allOf and the
// rest are resolved by the compiler, never again here. The documents as
// written are kept only for what the compiler drops: the order of properties
// and the exact default values.
package schema

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/promptsmith/promptsmith/engine/input"
	"github.com/promptsmith/promptsmith/engine/pointer"
	"github.com/promptsmith/promptsmith/engine/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// baseURL is how schemas name each other: a $ref of "common.schema.json"
// inside schemas/<name>.schema.json resolves to another file of the library.
const baseURL = "file:///schemas/"

// Set is every schema of a library. It is immutable once loaded.
type Set struct {
	label    string
	compiler *jsonschema.Compiler
	mu       sync.Mutex // guards compiling: byName, broken and byLoc grow as schemas are asked for
	byName   map[string]*Schema
	broken   map[string]error              // schemas that do not load, by name
	raw      map[string]any                // the documents as written, by file URL
	docs     map[string]*input.Document    // the same, with their positions
	order    *input.KeyOrder               // their key order, kept as long as the set
	byLoc    map[string]*jsonschema.Schema // every compiled schema by its location
}

// Schema is one compiled schema of the set: the input of a variant.
type Schema struct {
	set      *Set
	name     string
	url      string
	compiled *jsonschema.Schema
	defaults *defaults
}

// Load reads and compiles schemas/*.schema.json; label is where the files
// are, for error positions.
func Load(fsys fs.FS, label string) (*Set, error) {
	set := &Set{label: label, byName: map[string]*Schema{}, broken: map[string]error{}, raw: map[string]any{}, order: &input.KeyOrder{},
		byLoc: map[string]*jsonschema.Schema{}, docs: map[string]*input.Document{}}
	files, _ := fs.Glob(fsys, "schemas/*.schema.json")
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.ExtractAnnotations = true
	nameOf := func(f string) string { return strings.TrimSuffix(path.Base(f), ".schema.json") }
	// A schema that does not load breaks the variants that use it, and no
	// others: each failure is kept by name for Get to report.
	for _, f := range files {
		file := path.Join(label, f)
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			set.broken[nameOf(f)] = problem.Template(file, "cannot read schema: %v", err)
			continue
		}
		// The document stays recorded for as long as the set: it is never released.
		doc, err := input.Decode(input.Input{Name: file, Data: data}, set.order)
		if err != nil {
			e := problem.As(err)
			e.Kind = problem.KindTemplate
			set.broken[nameOf(f)] = e
			continue
		}
		url := baseURL + path.Base(f)
		set.raw[url] = doc.Root
		set.docs[url] = doc
		if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
			set.broken[nameOf(f)] = problem.Template(file, "invalid schema: %v", err)
		}
	}
	set.compiler = c
	return set, nil
}

// Get returns the schema of that name (schemas/<name>.schema.json),
// compiling it on first use: a command that renders one variant compiles
// one schema. It returns nil and the error when the schema does not load,
// nil and nil when there is none.
func (s *Set) Get(name string) (*Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc, ok := s.byName[name]; ok || s.broken[name] != nil {
		return sc, s.broken[name]
	}
	url := baseURL + name + ".schema.json"
	if _, ok := s.raw[url]; !ok {
		return nil, nil
	}
	f := "schemas/" + name + ".schema.json"
	compiled, err := s.compiler.Compile(url)
	if err != nil {
		s.broken[name] = (&problem.Error{Kind: problem.KindTemplate, Position: path.Join(s.label, f),
			Reason: "schema does not compile: " + strings.ReplaceAll(err.Error(), baseURL, "schemas/"), Err: err}).
			Hint("the file must be a JSON Schema of draft 2020-12; check the keyword named above")
		return nil, s.broken[name]
	}
	s.index(compiled)
	sc := &Schema{set: s, name: name, url: url, compiled: compiled}
	sc.defaults = s.buildDefaults(compiled, map[*jsonschema.Schema]*defaults{})
	s.byName[name] = sc
	return sc, nil
}

// loc is the compiled schema at a location, for explaining violations.
func (s *Set) loc(key string) *jsonschema.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byLoc[key]
}

// Name is the schema's name: schemas/<name>.schema.json.
func (sc *Schema) Name() string { return sc.name }

// JSON is the schema document, indented, with its keys in the order written.
func (sc *Schema) JSON() []byte {
	return input.AppendJSON(nil, sc.set.raw[sc.url], sc.set.order, true)
}

// Properties lists the names of the top-level properties, in the order written.
func (sc *Schema) Properties() []string { return sc.set.propertyNames(sc.compiled) }

// index records every schema reachable from s by its location, so that an
// error's keyword location leads back to the schema that holds the keyword.
func (s *Set) index(sch *jsonschema.Schema) {
	if sch == nil {
		return
	}
	loc := normalLocation(sch.Location)
	if _, seen := s.byLoc[loc]; seen {
		return
	}
	s.byLoc[loc] = sch
	for _, sub := range subschemas(sch) {
		s.index(sub)
	}
}

func subschemas(sch *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{sch.Ref, sch.Not, sch.If, sch.Then, sch.Else, sch.Items2020, sch.Contains,
		sch.PropertyNames, sch.UnevaluatedProperties, sch.UnevaluatedItems, sch.DynamicRef}
	out = append(out, sch.AllOf...)
	out = append(out, sch.AnyOf...)
	out = append(out, sch.OneOf...)
	out = append(out, sch.PrefixItems...)
	for _, p := range sch.Properties {
		out = append(out, p)
	}
	for _, p := range sch.PatternProperties {
		out = append(out, p)
	}
	for _, p := range sch.DependentSchemas {
		out = append(out, p)
	}
	if a, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		out = append(out, a)
	}
	return out
}

// normalLocation writes a location as url#pointer, the root as url#.
func normalLocation(loc string) string {
	url, frag, _ := strings.Cut(loc, "#")
	if frag == "/" {
		frag = ""
	}
	return url + "#" + frag
}

// rawNode is the document as written at a compiled schema's location.
func (s *Set) rawNode(sch *jsonschema.Schema) map[string]any {
	url, frag, _ := strings.Cut(sch.Location, "#")
	v, _ := pointer.Lookup(s.raw[url], frag)
	m, _ := v.(map[string]any)
	return m
}

// propertyNames lists the properties sch declares, in the order written.
func (s *Set) propertyNames(sch *jsonschema.Schema) []string {
	if sch == nil || len(sch.Properties) == 0 {
		return nil
	}
	if props, ok := s.rawNode(sch)["properties"].(map[string]any); ok && len(props) == len(sch.Properties) {
		return s.order.Keys(props)
	}
	return slices.Sorted(maps.Keys(sch.Properties))
}

// description is a schema's description, or that of the schema it refers to.
func description(sch *jsonschema.Schema) string {
	if sch == nil {
		return ""
	}
	if sch.Ref != nil && sch.Ref.Description != "" {
		return sch.Ref.Description
	}
	return sch.Description
}

// Undeclared says why the schema does not allow the field at ptr, or
// returns "". It objects only where the schema is sure (properties without
// the name and additionalProperties: false, or an array on the way);
// validation catches the rest.
func (sc *Schema) Undeclared(ptr string) string {
	return undeclared(sc.compiled, pointer.Split(ptr), 0)
}

func undeclared(sch *jsonschema.Schema, toks []string, depth int) string {
	if len(toks) == 0 || depth > 32 || sch == nil {
		return ""
	}
	if sch.Items2020 != nil || sch.Items != nil || hasType(sch, "array") {
		return "the field is inside an array; a probe fills a whole field, such as the array itself"
	}
	if p, ok := sch.Properties[toks[0]]; ok {
		return undeclared(p, toks[1:], depth+1)
	}
	for _, branches := range [][]*jsonschema.Schema{sch.AllOf, sch.AnyOf, sch.OneOf} {
		for _, b := range branches {
			if _, ok := b.Properties[toks[0]]; ok {
				return undeclared(b, toks, depth+1)
			}
		}
	}
	if sch.Ref != nil {
		return undeclared(sch.Ref, toks, depth+1)
	}
	switch add := sch.AdditionalProperties.(type) {
	case bool:
		if !add {
			return fmt.Sprintf("the schema declares no field %q there", toks[0])
		}
	case *jsonschema.Schema:
		return undeclared(add, toks[1:], depth+1)
	}
	return ""
}

func hasType(sch *jsonschema.Schema, t string) bool {
	for _, x := range sch.Types {
		if x == t {
			return true
		}
	}
	return false
}
