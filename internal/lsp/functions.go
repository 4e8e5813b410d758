package lsp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/funcs"
)

// function is what the editor shows of a function a template may call.
type function struct {
	name      string
	signature string
	doc       string
	example   string // a template and what it writes, as markdown
	origin    string // "promptsmith", "sprig" or "text/template"
}

// builtins are text/template's own functions, with what they do.
func builtins() map[string]string {
	return map[string]string{
		"and": "and X Y ...: the first empty argument, or the last", "or": "or X Y ...: the first non-empty argument, or the last",
		"not": "not X: the boolean negation of X", "len": "len X: the length of X",
		"index": "index X KEY...: X[KEY]...", "slice": "slice X I J: X[I:J]",
		"print": "print ARGS: fmt.Sprint", "printf": "printf FORMAT ARGS: fmt.Sprintf", "println": "println ARGS: fmt.Sprintln",
		"eq": "eq X Y ...: X == Y (or any of them)", "ne": "ne X Y: X != Y", "lt": "lt X Y: X < Y",
		"le": "le X Y: X <= Y", "gt": "gt X Y: X > Y", "ge": "ge X Y: X >= Y",
		"call": "call FN ARGS: FN(ARGS)", "html": "html X: X escaped for HTML", "js": "js X: X escaped for JavaScript",
		"urlquery": "urlquery X: X escaped for a URL query",
	}
}

// keywords are the actions of text/template.
func keywords() []string {
	return []string{"if", "else", "end", "range", "with", "define", "block", "template", "break", "continue"}
}

// functions lists every function a template may call, sorted by name:
// the engine's catalog with signatures and examples, sprig's and
// text/template's.
func functions() []function {
	byName := map[string]function{}
	for name := range funcs.Map(&funcs.Env{}) {
		byName[name] = function{name: name, signature: name, origin: "sprig",
			doc: "sprig's " + name + " (https://masterminds.github.io/sprig/)"}
	}
	for name, doc := range builtins() {
		sig, d, _ := strings.Cut(doc, ": ")
		byName[name] = function{name: name, signature: sig, doc: d, origin: "text/template"}
	}
	for _, f := range funcs.Catalog(nil) {
		fn := function{name: f.Name, signature: f.Signature, doc: f.Doc, origin: "promptsmith (" + f.Namespace + ")"}
		if len(f.Examples) > 0 {
			ex := f.Examples[0]
			fn.example = fmt.Sprintf("```gotemplate\n%s\n```\nwrites `%s`", ex.Template, ex.Output)
			if ex.Data != "" {
				fn.example = fmt.Sprintf("with data `%s`:\n", ex.Data) + fn.example
			}
		}
		byName[f.Name] = fn
	}
	out := make([]function, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out
}

// markdown is the function's entry as hover and completion show it.
func (f function) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "```gotemplate\n%s\n```\n\n%s", f.signature, f.doc)
	if f.example != "" {
		b.WriteString("\n\nExample, ")
		b.WriteString(f.example)
	}
	fmt.Fprintf(&b, "\n\n*%s*", f.origin)
	return b.String()
}
