package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A variant's JSON Schema is written for validators; the OpenAPI document
// gives it in the form code generators (oapi-codegen, openapi-typescript)
// read, with the same meaning:
//
//   - each definition of $defs is a component of its own,
//     components.schemas.<variant><Definition>, and the references to it
//     point there: generators follow references to components only;
//   - a property that may not be given (false) is {"not": {}}, and one
//     that may be anything (true) is {};
//   - a type list ("type": ["string", "integer"]) is an anyOf of one type
//     each;
//   - a reference with constraints beside it is an allOf of the reference
//     and the constraints, which generators that ignore a reference's
//     siblings then keep;
//   - a property that has a default is not required: the server fills it
//     in, so a caller may leave it out (openapi-typescript would make it
//     a required field of the request's type otherwise, and oapi-codegen
//     a field that is always sent); its default is given as x-default,
//     since openapi-typescript with its default settings makes any
//     property with a default required whatever the required list says;
//   - an object that names none of its properties takes any
//     ("additionalProperties": true), which generators type as a map of
//     anything rather than as an object that may hold nothing
//     (openapi-typescript's Record<string, never>);
//   - a property an allOf member forbids outright ({"properties": {"x":
//     false}}: a misspelling refused) is no property of the object but a
//     "not required" of its own, so that a generator does not make a
//     field of it (qa_feedback beside qaFeedback would be two fields of one
//     name in Go).
//
// GET /v1/variants/{variant}/schema answers the schema as written.

// forGenerators is the schema of variant's input as components: the
// input itself (inputComponent) and each of its definitions. Two
// definitions whose component names are one (a_b and aB), or a definition
// named as the input's component, are refused: one would overwrite the
// other in the document.
func forGenerators(schema map[string]any, variant string) (map[string]any, error) {
	input := inputComponent(variant)
	names := map[string]string{} // "#/$defs/x" → the component of x
	defs, _ := schema["$defs"].(map[string]any)
	delete(schema, "$defs")
	owner := map[string]string{input: "the input itself"} // component → what it describes
	for _, def := range slices.Sorted(maps.Keys(defs)) {
		name := componentName.ReplaceAllString(variant, "_") + typeNameOf(def)
		if other, taken := owner[name]; taken {
			return nil, fmt.Errorf("the schema of %s: $defs/%s would be components.schemas.%s, which is %s already: rename the definition", variant, def, name, other)
		}
		owner[name] = "$defs/" + def
		names["#/$defs/"+def] = name
	}
	out := map[string]any{input: generatorSchema(schema, input, names)}
	for def, s := range defs {
		name := names["#/$defs/"+def]
		out[name] = generatorSchema(s, input, names)
	}
	return out, nil
}

// generatorSchema rewrites one schema, and those it holds, as the comment
// above says: references into the input point at the components.
func generatorSchema(node any, input string, names map[string]string) any {
	switch n := node.(type) {
	case bool:
		if n {
			return map[string]any{}
		}
		return map[string]any{"not": map[string]any{}}
	case map[string]any:
		out := map[string]any{}
		for k, v := range n {
			switch k {
			case "properties", "patternProperties", "dependentSchemas":
				m, _ := v.(map[string]any)
				sub := map[string]any{}
				for name, s := range m {
					sub[name] = generatorSchema(s, input, names)
				}
				out[k] = sub
			case "items", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties":
				out[k] = generatorSchema(v, input, names)
			case "additionalProperties":
				if b, ok := v.(bool); ok {
					out[k] = b // generators read additionalProperties: false
				} else {
					out[k] = generatorSchema(v, input, names)
				}
			case "allOf", "anyOf", "oneOf", "prefixItems":
				list, _ := v.([]any)
				sub := make([]any, len(list))
				for i, s := range list {
					sub[i] = generatorSchema(s, input, names)
				}
				out[k] = sub
			case "$ref":
				out[k] = componentRef(v.(string), input, names)
			default:
				out[k] = v
			}
		}
		if types, ok := out["type"].([]any); ok {
			delete(out, "type")
			one := make([]any, len(types))
			for i, t := range types {
				one[i] = map[string]any{"type": t}
			}
			out = withAllOf(out, map[string]any{"anyOf": one})
		}
		forbidOutright(out)
		optionalDefaults(out)
		freeForm(out)
		if d, has := out["default"]; has {
			// openapi-typescript, by default, makes a property with a
			// default a required field of the type (defaultNonNullable:
			// the server's answers always have it), requests included: the
			// default is kept as x-default, which generators pass over.
			delete(out, "default")
			out["x-default"] = d
		}
		if r, ok := out["$ref"]; ok && constrains(out) {
			delete(out, "$ref")
			out = withAllOf(out, map[string]any{"$ref": r})
		}
		return out
	}
	return node
}

// constrains reports whether a schema holding a $ref says more than notes
// beside it.
func constrains(s map[string]any) bool {
	for k := range s {
		switch k {
		case "$ref", "description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly":
		default:
			return true
		}
	}
	return false
}

// withAllOf adds part to what s requires: as its allOf's first member, or
// as an anyOf of its own when it has none and no anyOf yet.
func withAllOf(s, part map[string]any) map[string]any {
	if _, has := s["anyOf"]; !has && part["anyOf"] != nil && s["allOf"] == nil {
		s["anyOf"] = part["anyOf"]
		return s
	}
	list, _ := s["allOf"].([]any)
	s["allOf"] = append([]any{part}, list...)
	return s
}

// componentRef is where a reference of the input points in the document.
func componentRef(r, input string, names map[string]string) string {
	if !strings.HasPrefix(r, "#") {
		return r
	}
	for from, to := range names {
		if r == from || strings.HasPrefix(r, from+"/") {
			return "#/components/schemas/" + to + strings.TrimPrefix(r, from)
		}
	}
	return "#/components/schemas/" + input + strings.TrimPrefix(r, "#")
}

// forbidOutright turns each allOf member of s that only forbids properties
// into {"not": {"anyOf": [{"required": [name]}, ...]}}, and takes those
// properties out of s's own.
func forbidOutright(s map[string]any) {
	list, _ := s["allOf"].([]any)
	props, _ := s["properties"].(map[string]any)
	for i, m := range list {
		member, _ := m.(map[string]any)
		forbidden, _ := member["properties"].(map[string]any)
		if len(member) != 1 || len(forbidden) == 0 {
			continue
		}
		var names []string
		for name, p := range forbidden {
			if !isNever(p) {
				names = nil
				break
			}
			names = append(names, name)
		}
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		required := make([]any, len(names))
		for j, name := range names {
			required[j] = map[string]any{"required": []any{name}}
			delete(props, name)
		}
		list[i] = map[string]any{"not": map[string]any{"anyOf": required}}
	}
}

// isNever reports whether a rewritten schema admits nothing: {"not": {}}.
func isNever(s any) bool {
	m, _ := s.(map[string]any)
	not, ok := m["not"].(map[string]any)
	return ok && len(m) == 1 && len(not) == 0
}

// optionalDefaults takes out of s's required list each property that has
// a default.
func optionalDefaults(s map[string]any) {
	required, _ := s["required"].([]any)
	props, _ := s["properties"].(map[string]any)
	if len(required) == 0 || len(props) == 0 {
		return
	}
	kept := []any{}
	for _, r := range required {
		p, _ := props[fmt.Sprint(r)].(map[string]any)
		_, has := p["default"]
		_, moved := p["x-default"]
		if !has && !moved {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		delete(s, "required")
	} else {
		s["required"] = kept
	}
}

// freeForm says of an object schema that says nothing of the properties
// it does not name what JSON Schema means by that: it takes any others
// ("additionalProperties": true). Generators read an absent
// additionalProperties as none: openapi-typescript types an object that
// names no properties as Record<string, never>, and refuses an input's
// extra field that the schema accepts and the server ignores.
func freeForm(s map[string]any) {
	_, props := s["properties"]
	if s["type"] != "object" { // a member of an allOf adds to its object's
		return
	}
	for _, k := range []string{"additionalProperties", "unevaluatedProperties", "$ref"} {
		if _, has := s[k]; has {
			return
		}
	}
	if !props {
		for _, k := range []string{"patternProperties", "allOf", "anyOf", "oneOf"} {
			if _, has := s[k]; has {
				return
			}
		}
	}
	s["additionalProperties"] = true
}
