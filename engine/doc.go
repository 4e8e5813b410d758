// Package engine loads a library of prompt variants and renders them.
//
// A variant is a folder templates/<name>/ holding a prompt.yaml manifest, one
// *.md.tmpl file per section, _*.tmpl partials and examples/*.yaml inputs, plus a
// JSON Schema schemas/<schema>.schema.json for its input. The engine knows no
// variant by name: everything a variant needs is declared in those files.
//
// Start with Load (or LoadDir), then Library.Render. Rendering is a fixed
// pipeline, each stage a package of its own that this one only orchestrates:
//
//	input     decode JSON or YAML, keeping key order and positions
//	schema    validate, explain violations, fill in defaults
//	verbatim  keep embedded fields extractable (markers, regions, Extract)
//	rules     the manifest's input rules (unique, references, ...)
//	          ids: hashes of input fields (this package)
//	budget    what to cut to fit a number of tokens (FitTokens)
//	funcs     the template functions, run by text/template per section
//	check     the manifest's checks, on the outline of the prompt (outline)
//
// with manifest (prompt.yaml), pointer (JSON pointers), problem (the
// error type) and parsetree (one walk of text/template's trees) beneath
// them all. budget, check, outline and rules live under engine/internal;
// funcs, input, lint, manifest, parsetree, pointer, problem and schema
// under the module's internal/, where the authoring tools (the language
// server, typegen, render lint) use them too. A caller
// outside the module sees this package, and verbatim, alone.
//
// # Import rules
//
// The packages form a tree with this one on top; none imports a package
// above it, and TestImportRules keeps that true:
//
//	engine
//	├── budget   → input, manifest, pointer
//	├── check    → outline, verbatim, manifest, pointer, problem
//	├── rules    → input, manifest, pointer, problem
//	├── funcs    → input
//	├── lint     → funcs, schema, problem
//	├── schema   → input, pointer, problem
//	├── outline  → verbatim
//	├── verbatim → input, manifest, pointer, problem
//	├── manifest → input, pointer, problem
//	├── input    → pointer, problem
//	├── pointer
//	├── parsetree
//	└── problem
//
// Outside the engine, any of them may import internal/phrase (quoting,
// sizes and typos in messages), which imports nothing of the module.
//
// Nothing on the render path imports os/exec, syscall, net or the gather
// package: rendering reads its input and nothing else of the host. No
// package holds mutable state at package level: it lives in a Library, a
// render or an option. A Library is immutable once loaded and safe for
// concurrent use.
package engine
