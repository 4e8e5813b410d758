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
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// baseURL is how schemas name each other: a $ref of "common.schema.json"
// inside schemas/<name>.schema.json resolves to another file of the library.
const baseURL = "file:///schemas/"

// Set is every schema of a library. Each file is read when a variant first
// asks for it, or for a schema that refers to it: a command that renders one
// variant decodes and compiles that variant's schemas, not the library's.
type Set struct {
	label    string
	compiler *jsonschema.Compiler
	files    map[string]*file // by URL; the map never changes once loaded
	mu       sync.Mutex       // guards compiling: byName, broken, added and byLoc grow as schemas are asked for
	byName   map[string]*Schema
	broken   map[string]error              // schemas that do not load, by name
	added    map[string]bool               // the files handed to the compiler
	order    *input.KeyOrder               // the documents' key order, kept as long as the set
	byLoc    map[string]*jsonschema.Schema // every compiled schema by its location
	startMu  sync.Mutex                    // guards started, apart from mu, which a compile holds
	started  map[string]bool               // the schemas Start began to compile
}

// file is one schema file: its bytes, read on first use (a render reads
// its variant's schema, not the library's), and the document decoded from
// them, with its positions and key order.
type file struct {
	name string // as an error names it: <label>/schemas/<name>.schema.json
	read func() ([]byte, error)

	readOnce sync.Once
	data     []byte
	readErr  error

	once sync.Once
	doc  *input.Document
	err  error
}

// bytes reads the file once.
func (f *file) bytes() ([]byte, error) {
	f.readOnce.Do(func() {
		if f.data, f.readErr = f.read(); f.readErr != nil {
			f.readErr = problem.Template(f.name, "cannot read schema: %v", f.readErr)
		}
	})
	return f.data, f.readErr
}

// Schema is one compiled schema of the set: the input of a variant.
type Schema struct {
	set      *Set
	name     string
	url      string
	compiled *jsonschema.Schema
	defaults *defaults
}

// Load lists schemas/*.schema.json; label is where the files are, for
// error positions. Nothing is read, decoded or compiled until asked for.
func Load(fsys fs.FS, label string) (*Set, error) {
	set := &Set{label: label, files: map[string]*file{}, byName: map[string]*Schema{}, broken: map[string]error{},
		added: map[string]bool{}, order: &input.KeyOrder{}, byLoc: map[string]*jsonschema.Schema{}, started: map[string]bool{}}
	paths, _ := fs.Glob(fsys, "schemas/*.schema.json")
	for _, f := range paths {
		set.files[baseURL+path.Base(f)] = &file{name: path.Join(label, f), read: func() ([]byte, error) { return fs.ReadFile(fsys, f) }}
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.Formats["date-time"] = dateTime
	c.ExtractAnnotations = true
	// A $ref to another file of the library reaches it here, while Get
	// compiles (and holds mu).
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		f := set.files[url]
		if f == nil {
			return nil, notInLibrary(url)
		}
		if _, err := set.document(url); err != nil {
			return nil, err
		}
		set.added[url] = true // the compiler adds what it loads
		data, _ := f.bytes()  // read by document
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	set.compiler = c
	return set, nil
}

// notInLibrary is the error for a $ref to anything but a file of schemas/:
// rendering reads nothing but the library.
func notInLibrary(url string) error {
	return fmt.Errorf("%s is not a schema of the library: a $ref may name only another file of schemas/, as \"common.schema.json#/$defs/name\"", strings.TrimPrefix(url, baseURL))
}

// document is the file at url decoded, or nil when there is no such file.
func (s *Set) document(url string) (*input.Document, error) {
	f := s.files[url]
	if f == nil {
		return nil, nil
	}
	f.once.Do(func() {
		data, err := f.bytes()
		if err != nil {
			f.err = err
			return
		}
		// The document stays recorded for as long as the set: it is never released.
		doc, err := input.Decode(input.Input{Name: f.name, Data: data}, s.order)
		if err != nil {
			e := problem.As(err)
			e.Kind = problem.KindTemplate
			f.err = e
			return
		}
		f.doc = doc
	})
	return f.doc, f.err
}

// add hands the file at url to the compiler, once; mu must be held. The
// engine's decoder reads it too, for the positions of its errors and for
// what the compiler drops (key order, defaults as written): that error,
// when there is one, is the one reported.
func (s *Set) add(url string) error {
	if s.added[url] {
		return nil
	}
	f := s.files[url]
	if f == nil {
		return notInLibrary(url)
	}
	data, err := f.bytes()
	if err != nil {
		return err
	}
	if err := s.compiler.AddResource(url, bytes.NewReader(data)); err != nil {
		if _, derr := s.document(url); derr != nil {
			return derr
		}
		return problem.Template(f.name, "invalid schema: %v", err)
	}
	s.added[url] = true
	return nil
}

// Start begins compiling the schema of that name on a goroutine of its
// own, unless it was started before, for a caller that will Get it soon:
// compiling is the longest step of loading a variant, and it needs nothing
// the rest of the load reads.
func (s *Set) Start(name string) {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started[name] {
		return
	}
	s.started[name] = true
	go func() { _, _ = s.Get(name) }()
}

// Decode decodes the document of the schema of that name, which Get reads
// for its positions and for what the compiler drops (key order, defaults
// as written) once it has compiled the schema: a caller that has time to
// spare while Get compiles, on another goroutine, decodes it meanwhile.
// Get reports its error.
func (s *Set) Decode(name string) {
	_, _ = s.document(baseURL + name + ".schema.json")
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
	if s.files[url] == nil {
		return nil, nil
	}
	var compiled *jsonschema.Schema
	err := s.add(url)
	if err == nil {
		compiled, err = s.compiler.Compile(url)
		if err != nil {
			err = s.compileError(url, name, err)
		}
	}
	var cost costCheck
	if err == nil {
		cost = measureCost(compiled) // while Decode may still run
	}
	if _, derr := s.document(url); derr != nil {
		err = derr // the decoder's error names the line
	}
	if err == nil {
		err = s.costError(cost)
	}
	if err != nil {
		s.broken[name] = err
		return nil, err
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
	doc, _ := sc.set.document(sc.url) // decoded before it compiled
	return input.AppendJSON(nil, doc.Root, sc.set.order, true)
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

// visitOnce calls visit on sch, then on each schema next gives for it,
// depth first; nil schemas and those already in seen are skipped, and
// seen gets every schema visited: references may loop, and a schema
// reached twice is read once.
func visitOnce(sch *jsonschema.Schema, seen map[*jsonschema.Schema]bool, next func(*jsonschema.Schema) []*jsonschema.Schema, visit func(*jsonschema.Schema)) {
	if sch == nil || seen[sch] {
		return
	}
	seen[sch] = true
	visit(sch)
	for _, c := range next(sch) {
		visitOnce(c, seen, next, visit)
	}
}

// applied are the schemas that apply wherever sch does: its reference
// and its allOf, anyOf and oneOf branches.
func applied(sch *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{sch.Ref}
	for _, group := range [][]*jsonschema.Schema{sch.AllOf, sch.AnyOf, sch.OneOf} {
		out = append(out, group...)
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
	doc, _ := s.document(url)
	if doc == nil {
		return nil
	}
	v, _ := pointer.Lookup(doc.Root, frag)
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

// dateTime is the date-time format as the templates' time functions read
// a time: the validator's own check of RFC 3339, which lets a sign through
// where a field's digits go ("12:-0:00Z"), and Go's parser of RFC 3339,
// which isoTime and the other time functions use. An input that passes
// validation then holds a time every template can read, and one that does
// not is refused at its field rather than blamed on the template.
func dateTime(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true // the format says nothing of other types
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return jsonschema.Formats["date-time"](v) && err == nil
}
