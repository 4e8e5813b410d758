package schema

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compileError is the error for a schema file that is not a valid JSON
// Schema (the meta-schema refuses it): at the line and column of the value
// refused, what is wrong there, and, for a type that is not one of JSON
// Schema's ("strng"), the one meant. An error of another kind (a $ref to
// nothing) keeps the compiler's words, at the file.
func (s *Set) compileError(url, name string, err error) error {
	f := "schemas/" + name + ".schema.json"
	generic := (&problem.Error{Kind: problem.KindTemplate, Position: path.Join(s.label, f),
		Reason: "schema does not compile: " + strings.ReplaceAll(err.Error(), baseURL, "schemas/"), Err: err}).
		Hint("the file must be a JSON Schema of draft 2020-12; check the keyword named above")
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return generic
	}
	leaf := deepest(ve)
	ptr := leaf.InstanceLocation
	doc, _ := s.document(url)
	if doc == nil {
		return generic
	}
	pos := doc.Position(ptr)
	if pos == "" {
		pos = path.Join(s.label, f)
	}
	e := &problem.Error{Kind: problem.KindTemplate, Position: pos, Err: err}
	got, _ := pointer.Lookup(doc.Root, ptr)
	keyword := ptr[strings.LastIndexByte(ptr, '/')+1:]
	parent := strings.TrimSuffix(ptr, "/"+keyword)
	if t, ok := got.(string); ok && (keyword == "type" || strings.HasSuffix(parent, "/type")) && !slices.Contains(jsonTypes(), t) {
		e.Reason = fmt.Sprintf("%q is not a type of JSON Schema (at %s)", t, ptr)
		if near := phrase.Closest(t, jsonTypes()); near != "" {
			e.Hint("did you mean %q? write \"type\": %q", near, near)
		}
		e.Hint("the types are: %s", strings.Join(jsonTypes(), ", "))
		return e
	}
	e.Reason = fmt.Sprintf("not a valid JSON Schema at %s: %s", orRoot(ptr), leaf.Message)
	e.Hint("the file must be a JSON Schema of draft 2020-12: fix the value at that line")
	return e
}

// deepest is the first of the causes of a validation error that stands
// deepest in the document: the value refused, not the object holding it.
func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := ve
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			if strings.Count(v.InstanceLocation, "/") > strings.Count(best.InstanceLocation, "/") || len(best.Causes) > 0 {
				best = v
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	return best
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the top"
	}
	return ptr
}
