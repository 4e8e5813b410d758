// Package typegen writes the input types of a variant for callers in other
// languages: TypeScript interfaces and Python TypedDicts generated from the
// variant's JSON Schema (draft 2020-12), with the schema's descriptions as
// doc comments, so that an agent written in TypeScript or Python builds its
// input with its compiler's or type checker's help.
//
// It covers what the library's schemas use: objects with properties,
// required and additionalProperties, arrays, $ref to a definition of the same
// document (one named type per definition), enum and const (literal types),
// type unions, allOf (merged into one object), if/then/else (stated in the
// doc comment, since neither language can say it), format and default
// (noted in the doc comment). What a type cannot express, the renderer still
// checks against the schema.
package typegen

import (
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/internal/input"
)

// Lang is a language Generate writes types in. Its value is what
// `render schema --lang` takes.
type Lang string

// The languages Generate writes.
const (
	TypeScript Lang = "ts"
	Python     Lang = "python"
	Go         Lang = "go"
)

// Langs lists the languages whose types a library keeps golden files of
// (testdata/golden/types): those of the agents that call the API.
func Langs() []Lang { return []Lang{TypeScript, Python} }

// AllLangs lists every language Generate writes: Langs and Go, whose
// types a Go program sends as JSON (golang.go).
func AllLangs() []Lang { return append(Langs(), Go) }

// FileExt is the extension of a file of types in l: ".ts" or ".py". The
// golden files of a library's types are <variant><ext>.
func (l Lang) FileExt() string {
	if l == Python {
		return ".py"
	}
	return ".ts"
}

// Generate returns the types of a variant's input schema in lang: one named
// type per object of the schema, the root named after the variant
// (RootName). The output depends on nothing but its arguments, and names are
// derived from the schema's own names and paths, so a schema change changes
// only the types it touches.
func Generate(lang Lang, variant string, schemaJSON []byte) ([]byte, error) {
	m, err := build(variant, schemaJSON)
	if err != nil {
		return nil, err
	}
	switch lang {
	case TypeScript:
		return writeTypeScript(m), nil
	case Python:
		return writePython(m), nil
	case Go:
		return writeGo(m, goPackage(variant))
	}
	return nil, fmt.Errorf("typegen: unknown language %q (known: %s)", lang, langList())
}

func langList() string {
	var names []string
	for _, l := range AllLangs() {
		names = append(names, string(l))
	}
	return strings.Join(names, ", ")
}

// RootName is the name of the root type for a variant: "delegation" gives
// DelegationInput.
func RootName(variant string) string { return typeName(variant) + "Input" }

// build decodes a schema, keeping its key order, and turns it into a model.
func build(variant string, schemaJSON []byte) (*model, error) {
	doc, err := input.Decode(input.Input{Name: variant + ".schema.json", Data: schemaJSON}, nil)
	if err != nil {
		return nil, fmt.Errorf("typegen: reading the schema of %s: %w", variant, err)
	}
	defer doc.Release()
	b := newBuilder(variant, doc)
	if err := b.run(); err != nil {
		return nil, fmt.Errorf("typegen: schema of %s: %w", variant, err)
	}
	return b.model, nil
}
