package engine

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// schemaURL is how schemas name each other: a $ref of "common.schema.json"
// inside schemas/<name>.schema.json resolves to another file of the library.
const schemaURL = "file:///schemas/"

// schemaSet is every compiled schema of a library plus the raw documents, which
// are kept for defaults and for the descriptions quoted in error hints.
type schemaSet struct {
	compiled map[string]*jsonschema.Schema // by schema name
	raw      map[string]any                // by file URL
}

func loadSchemas(fsys fs.FS, label string) (*schemaSet, error) {
	set := &schemaSet{compiled: map[string]*jsonschema.Schema{}, raw: map[string]any{}}
	files, _ := fs.Glob(fsys, "schemas/*.schema.json")
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, authorErr(path.Join(label, f), "cannot read schema: %v", err)
		}
		doc, err := decode(Input{Name: path.Join(label, f), Data: data})
		if err != nil {
			e := AsError(err)
			e.Kind = KindTemplate
			return nil, e
		}
		doc.order.keep() // schemas live as long as the library: keep their key order
		url := schemaURL + path.Base(f)
		set.raw[url] = doc.root
		if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
			return nil, authorErr(path.Join(label, f), "invalid schema: %v", err)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".schema.json")
		s, err := c.Compile(schemaURL + path.Base(f))
		if err != nil {
			return nil, (&Error{Kind: KindTemplate, Field: path.Join(label, f),
				Reason: "schema does not compile: " + strings.ReplaceAll(err.Error(), schemaURL, "schemas/"), Err: err}).
				hint("the file must be a JSON Schema of draft 2020-12; check the keyword named above")
		}
		set.compiled[name] = s
	}
	return set, nil
}

// validate checks the decoded input and turns every violation into an Error
// naming the JSON pointer of the field and what to do about it.
func (s *schemaSet) validate(schema *jsonschema.Schema, doc *document) error {
	err := schema.Validate(any(doc.root))
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Kind: KindInput, Reason: err.Error(), Err: err}
	}
	var leaves []*Error
	seen := map[string]bool{}
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) > 0 {
			for _, c := range v.Causes {
				walk(c)
			}
			return
		}
		for _, e := range s.explain(v, doc) {
			key := e.Field + "\x00" + e.Reason
			if !seen[key] {
				seen[key] = true
				leaves = append(leaves, e)
			}
		}
	}
	walk(ve)
	slices.SortStableFunc(leaves, func(a, b *Error) int { return strings.Compare(a.Field, b.Field) })
	leaves = leaves[:min(len(leaves), 20)]
	for _, e := range leaves {
		e.Position = doc.position(e.Field)
	}
	first := leaves[0]
	first.Also = leaves[1:]
	if len(first.Also) == 0 {
		first.Also = nil
	}
	return first
}

func (s *schemaSet) explain(v *jsonschema.ValidationError, doc *document) []*Error {
	at := v.InstanceLocation
	kwURL, kwPtr, _ := strings.Cut(v.AbsoluteKeywordLocation, "#")
	keyword := path.Base(kwPtr)
	parent := path.Dir(kwPtr) // the schema object holding the keyword
	switch keyword {
	case "required":
		var out []*Error
		for _, name := range s.missingNames(kwURL, parent, doc, at, v.Message) {
			e := inputErr(at+"/"+escapePointer(name), "required field is missing")
			if d := s.propertyDescription(kwURL, parent, name); d != "" {
				e.hint("add %q: %s", name, d)
			} else {
				e.hint("add %q", name)
			}
			out = append(out, e)
		}
		return out
	case "additionalProperties":
		var out []*Error
		known := s.propertyNames(kwURL, parent)
		for _, name := range s.unknownNames(kwURL, parent, doc, at, known, v.Message) {
			e := inputErr(at+"/"+escapePointer(name), "unknown field %q", name)
			if near := closest(name, known); near != "" {
				e.hint("did you mean %q?", near)
			}
			if len(known) > 0 {
				e.hint("the fields allowed here are: %s", strings.Join(known, ", "))
			}
			out = append(out, e)
		}
		return out
	}
	if forbidden, _ := lookup(s.raw[kwURL], kwPtr); forbidden == false && path.Base(path.Dir(kwPtr)) == "properties" {
		// A property whose schema is false: a field that is not allowed in
		// this case (a then branch saying "not with this type"). Its own
		// description, declared outside the branch, says when it applies.
		name := path.Base(kwPtr)
		e := inputErr(at, "%q is not allowed here", name)
		if d := s.propertyDescription(kwURL, path.Dir(path.Dir(kwPtr)), name); d != "" {
			e.hint("this field is: %s", d)
		}
		return []*Error{e}
	}
	e := inputErr(at, "%s", v.Message)
	if keyword == "enum" || keyword == "const" || keyword == "type" || keyword == "pattern" || keyword == "format" {
		if d := s.description(kwURL, parent); d != "" {
			e.hint("this field is: %s", d)
		}
	}
	if got, ok := lookup(doc.root, at); ok && keyword != "required" {
		if str, isStr := got.(string); !isStr || len(str) < 80 {
			e.hint("got %s", shortJSON(got))
		}
	}
	return []*Error{e}
}

func (s *schemaSet) node(url, ptr string) (map[string]any, bool) {
	v, ok := lookup(s.raw[url], ptr)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func (s *schemaSet) description(url, ptr string) string {
	m, ok := s.node(url, ptr)
	if !ok {
		return ""
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if d := s.description(url, strings.TrimPrefix(ref, "#")); d != "" {
			return d
		}
	}
	d, _ := m["description"].(string)
	return d
}

// propertyDescription finds the description of property name for a keyword
// at ptr, looking outward: "required" may sit in a then or allOf branch
// while the property is declared next to it.
func (s *schemaSet) propertyDescription(url, ptr, name string) string {
	for p := ptr; ; p = path.Dir(p) {
		if p == "/" || p == "." {
			p = "" // the root: its properties are at /properties
		}
		if d := s.description(url, p+"/properties/"+escapePointer(name)); d != "" {
			return d
		}
		if p == "" {
			return ""
		}
	}
}

func (s *schemaSet) propertyNames(url, ptr string) []string {
	m, ok := s.node(url, ptr)
	if !ok {
		return nil
	}
	props, _ := m["properties"].(map[string]any)
	return orderedKeys(props)
}

// missingNames lists the schema's required properties that the object at
// the instance pointer lacks. jsonschema's message quotes them, but a name
// holding a quote cannot be read back from it, so the message is only the
// fallback.
func (s *schemaSet) missingNames(url, ptr string, doc *document, at, msg string) []string {
	node, ok := s.node(url, ptr)
	obj, isObj := lookupObject(doc, at)
	req, hasReq := node["required"].([]any)
	if !ok || !isObj || !hasReq {
		return quotedNames(msg)
	}
	var out []string
	for _, r := range req {
		if name, ok := r.(string); ok {
			if _, have := obj[name]; !have {
				out = append(out, name)
			}
		}
	}
	return out
}

// unknownNames lists the keys of the object at the instance pointer that the
// schema does not declare, in input order.
func (s *schemaSet) unknownNames(url, ptr string, doc *document, at string, known []string, msg string) []string {
	node, ok := s.node(url, ptr)
	obj, isObj := lookupObject(doc, at)
	if _, patterns := node["patternProperties"]; !ok || !isObj || patterns {
		return quotedNames(msg)
	}
	var out []string
	for _, k := range orderedKeys(obj) {
		if !slices.Contains(known, k) {
			out = append(out, k)
		}
	}
	return out
}

func lookupObject(doc *document, at string) (map[string]any, bool) {
	v, ok := lookup(doc.root, at)
	m, isObj := v.(map[string]any)
	return m, ok && isObj
}

// quotedNames pulls 'a', 'b' out of jsonschema's messages.
func quotedNames(msg string) []string {
	var out []string
	for {
		i := strings.IndexByte(msg, '\'')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(msg[i+1:], '\'')
		if j < 0 {
			return out
		}
		out = append(out, msg[i+1:i+1+j])
		msg = msg[i+j+2:]
	}
}

// closest returns the known name nearest to name, if it is near enough to be a typo.
func closest(name string, known []string) string {
	best, bestD := "", len(name)/2+2
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func shortJSON(v any) string {
	s := string(appendJSON(nil, v, false))
	if len(s) > 80 {
		s = truncateRunes(s, 77) + "..."
	}
	return s
}
