// Package engine loads a library of prompt variants and renders them.
//
// A variant is a folder templates/<name>/ holding a prompt.yaml manifest, one
// *.md.tmpl file per section, _*.tmpl partials and examples/*.yaml inputs, plus a
// JSON Schema schemas/<schema>.schema.json for its input. The engine knows no
// variant by name: everything a variant needs is declared in those files.
//
// Rendering is a fixed pipeline:
//
//	decode → validate → defaults → input rules → ids → sections → join → checks → Result
//
// A Library is immutable once loaded and safe for concurrent use.
package engine
