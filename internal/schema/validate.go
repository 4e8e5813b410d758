package schema

import (
	"errors"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxViolations bounds how many violations one error lists.
const maxViolations = 20

// Validate checks a decoded input and turns every violation into an error
// naming the JSON pointer of the field, where the input says it, and what to
// do about it. The first violation in pointer order is the error; the others
// are in its Also.
func (sc *Schema) Validate(doc *input.Document) error {
	err := sc.compiled.Validate(any(doc.Root))
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &problem.Error{Kind: problem.KindInput, Reason: err.Error(), Err: err}
	}
	var leaves []*problem.Error
	seen := map[string]bool{}
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) > 0 {
			for _, c := range v.Causes {
				walk(c)
			}
			return
		}
		for _, e := range sc.set.explain(v, doc) {
			key := e.Field + "\x00" + e.Reason
			if !seen[key] {
				seen[key] = true
				leaves = append(leaves, e)
			}
		}
	}
	walk(ve)
	slices.SortStableFunc(leaves, func(a, b *problem.Error) int { return pointer.Compare(a.Field, b.Field) })
	leaves = leaves[:min(len(leaves), maxViolations)]
	for _, e := range leaves {
		e.Position = doc.Position(e.Field)
	}
	first := leaves[0]
	first.Also = leaves[1:]
	if len(first.Also) == 0 {
		first.Also = nil
	}
	return first
}

// explain turns one violation into errors, one per field it concerns.
func (s *Set) explain(v *jsonschema.ValidationError, doc *input.Document) []*problem.Error {
	at := v.InstanceLocation
	url, kwPtr, _ := strings.Cut(v.AbsoluteKeywordLocation, "#")
	keyword := path.Base(kwPtr)
	holder := s.loc(normalLocation(url + "#" + path.Dir(kwPtr))) // the schema holding the keyword
	obj, isObj := lookupObject(doc, at)
	switch keyword {
	case "required":
		var out []*problem.Error
		for _, name := range missingNames(holder, obj, isObj, v.Message) {
			e := problem.Input(pointer.Append(at, name), "required field is missing")
			if why, where := s.unallowedRequired(holder, name); why != "" {
				// Adding it would be refused: the schema is at fault.
				e.Hint("no input can give it: the schema requires %s but %s; fix the schema at %s", phrase.Quote(name), why, where)
			} else if d := s.propertyDescription(url, path.Dir(kwPtr), name); d != "" {
				e.Hint("add %q: %s", name, d)
			} else {
				e.Hint("add %q", name)
			}
			out = append(out, e)
		}
		return out
	case "additionalProperties":
		var out []*problem.Error
		known := s.propertyNames(holder)
		for _, name := range s.unknownNames(holder, doc, obj, isObj, v.Message) {
			e := problem.Input(pointer.Append(at, name), "unknown field %s", phrase.Quote(name))
			if near := phrase.Closest(name, known); near != "" {
				e.Hint("did you mean %q?", near)
			}
			if len(known) > 0 {
				e.Hint("the fields allowed here are: %s", strings.Join(known, ", "))
			}
			out = append(out, e)
		}
		return out
	}
	if self := s.loc(normalLocation(v.AbsoluteKeywordLocation)); self != nil && self.Always != nil && !*self.Always &&
		path.Base(path.Dir(kwPtr)) == "properties" {
		// A property whose schema is false: a field that is not allowed in
		// this case (a then branch saying "not with this type"). Its own
		// description, declared outside the branch, says when it applies.
		name := path.Base(kwPtr)
		e := problem.Input(at, "%q is not allowed here", name)
		if d := s.propertyDescription(url, path.Dir(path.Dir(kwPtr)), name); d != "" {
			e.Hint("this field is: %s", d)
		}
		return []*problem.Error{e}
	}
	e := problem.Input(at, "%s", phrase.Clip(v.Message, 2*phrase.QuoteBytes)) // it may quote the value
	switch keyword {
	case "enum", "const", "type", "pattern", "format":
		if d := description(holder); d != "" {
			e.Hint("this field is: %s", d)
		}
	}
	if got, ok := pointer.Lookup(doc.Root, at); ok {
		if str, isStr := got.(string); !isStr || len(str) < 80 {
			e.Hint("got %s", input.Short(got, doc.Order()))
		}
	}
	return []*problem.Error{e}
}

// propertyDescription finds the description of property name for a keyword
// in the schema at url#ptr, looking outward: "required" may sit in a then
// or allOf branch while the property is declared next to it.
func (s *Set) propertyDescription(url, ptr, name string) string {
	for p := ptr; ; p = path.Dir(p) {
		if p == "/" || p == "." {
			p = ""
		}
		if sch := s.loc(url + "#" + p); sch != nil {
			if d := description(sch.Properties[name]); d != "" {
				return d
			}
		}
		if p == "" {
			return ""
		}
	}
}

// missingNames lists the required properties that the object lacks, from
// the compiled schema; the validator's message, which quotes them, is read
// only when the schema or the object cannot be found.
func missingNames(holder *jsonschema.Schema, obj map[string]any, isObj bool, msg string) []string {
	if holder == nil || !isObj {
		return quotedNames(msg)
	}
	var out []string
	for _, name := range holder.Required {
		if _, have := obj[name]; !have {
			out = append(out, name)
		}
	}
	return out
}

// unknownNames lists the keys of the object that the schema neither names
// nor matches with a pattern, in input order.
func (s *Set) unknownNames(holder *jsonschema.Schema, doc *input.Document, obj map[string]any, isObj bool, msg string) []string {
	if holder == nil || !isObj {
		return quotedNames(msg)
	}
	var out []string
	for _, k := range doc.Keys(obj) {
		if _, ok := holder.Properties[k]; ok || matchesPattern(holder.PatternProperties, k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// unallowedRequired says why holder requires name yet allows no value
// for it (see Lint), and where it does, or "".
func (s *Set) unallowedRequired(holder *jsonschema.Schema, name string) (why, where string) {
	if holder == nil {
		return "", ""
	}
	if p, ok := holder.Properties[name]; ok {
		if !isFalse(p) {
			return "", ""
		}
		why = "its schema for it is false"
	} else if holder.AdditionalProperties == false && !matchesPattern(holder.PatternProperties, name) {
		why = "its additionalProperties is false and its properties leave it out"
	} else {
		return "", ""
	}
	return why, s.position(holder, "required/"+strconv.Itoa(slices.Index(holder.Required, name)))
}

func matchesPattern(patterns map[*regexp.Regexp]*jsonschema.Schema, k string) bool {
	for re := range patterns {
		if re.MatchString(k) {
			return true
		}
	}
	return false
}

func lookupObject(doc *input.Document, at string) (map[string]any, bool) {
	v, ok := pointer.Lookup(doc.Root, at)
	m, isObj := v.(map[string]any)
	return m, ok && isObj
}

// quotedNames pulls 'a', 'b' out of the validator's messages.
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
