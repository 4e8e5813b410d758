package engine

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// A render that fails on a field ({{ .agnet.name }}: "map has no entry for
// key") says where, in text/template's terms. What the author needs is
// what the schema says there: the name they meant, or that the schema has
// no such property, or that the dot is not the input any more. fieldSite
// finds the node that failed in the variant's parse trees and what the
// dot, the variables and the schema are at it, following with, range and
// variables as package lint does.

// siteValue is what an expression gives: a place in the schema (ok), with
// its path as a template reads it from the input (".space.members[]").
type siteValue struct {
	node schema.Node
	path string
	ok   bool
	root bool // the whole input, where the engine's own names (ids, budget) also stand
}

// fieldSite is a field read that failed: the names it reads, what the
// first is read from, and what the dot is there.
type fieldSite struct {
	file  string // the template's file, as its parse tree names it
	node  parse.Node
	names []string  // the field names read, in order
	from  siteValue // what names[0] is read from
	// dotRead says the names are read from the dot (.a.b), not from a
	// variable or a parenthesized value.
	dotRead bool
	// rebound is "with" or "range" when the read stands inside one, where
	// the dot is the current item; reboundLine is that action's line.
	rebound     string
	reboundLine int
	// input is the schema of the whole input, when the template runs on it
	// (a section, a template_choice mode, a check's when:), so that $ is
	// the input.
	input siteValue
	// line and col0 are where text/template places the node: its line,
	// and a 0-based column, of the first field after the node's first
	// term (the second name of .a.b).
	line, col0 int
}

// segmentCol is the 1-based column of the i-th name the site reads, where
// an author puts the cursor: the "." before it.
func (s *fieldSite) segmentCol(i int) int {
	col := s.col0
	switch n := s.node.(type) {
	case *parse.FieldNode:
		if len(n.Ident) > 1 {
			col -= 1 + len(n.Ident[0]) // the position is that of the second name
		}
	case *parse.VariableNode:
		if len(n.Ident) == 1 {
			return col + 1
		}
	}
	for _, name := range s.names[:i] {
		col += 1 + len(name)
	}
	return col + 1
}

// startCol is the 1-based column where the node's text starts.
func (s *fieldSite) startCol() int {
	if v, ok := s.node.(*parse.VariableNode); ok && len(v.Ident) > 1 {
		return s.col0 - len(v.Ident[0]) + 1
	}
	return s.segmentCol(0)
}

// runsOnInput reports whether the template name runs on the whole input;
// partials and defines run on whatever their caller passes. It says what
// Variant.Lint tells package lint.
func (v *Variant) runsOnInput(name string) bool {
	if strings.HasPrefix(name, "prompt.yaml ") || slices.Contains(v.choiceFiles, name) {
		return true
	}
	return strings.HasSuffix(name, ".md.tmpl") && slices.Contains(v.manifest.Sections, strings.TrimSuffix(name, ".md.tmpl"))
}

// findFieldSite finds the field, variable or chain node that text/template
// placed at file:line:col0 (its ParseName, as its errors name it) and
// printed as at, or returns nil.
func (v *Variant) findFieldSite(file string, line, col0 int, at string) *fieldSite {
	if v.tmpl == nil {
		return nil
	}
	for _, t := range v.tmpl.Templates() {
		if t.Tree == nil || t.Tree.Root == nil || t.Tree.ParseName != file {
			continue
		}
		f := &siteFinder{v: v, tree: t.Tree, loc: file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col0), at: at}
		root := siteValue{}
		if v.runsOnInput(t.Name()) && v.schema != nil {
			root = siteValue{node: v.schema.Root(), path: "", ok: true, root: true}
		}
		f.input = root
		f.list(t.Tree.Root, &siteScope{dot: root, vars: map[string]siteValue{"$": root}})
		if f.found != nil {
			f.found.file, f.found.line, f.found.col0 = file, line, col0
			return f.found
		}
	}
	return nil
}

type siteScope struct {
	dot         siteValue
	vars        map[string]siteValue
	rebound     string
	reboundLine int
}

func (s *siteScope) child() *siteScope {
	c := *s
	c.vars = map[string]siteValue{}
	for k, v := range s.vars {
		c.vars[k] = v
	}
	return &c
}

type siteFinder struct {
	v     *Variant
	tree  *parse.Tree
	loc   string
	at    string
	input siteValue
	found *fieldSite
}

func (f *siteFinder) lineOf(n parse.Node) int {
	return problem.TemplateLine(f.tree, n)
}

func (f *siteFinder) list(l *parse.ListNode, s *siteScope) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		if f.found != nil {
			return
		}
		f.node(n, s)
	}
}

func (f *siteFinder) node(n parse.Node, s *siteScope) {
	switch n := n.(type) {
	case *parse.ActionNode:
		f.pipe(n.Pipe, s)
	case *parse.IfNode:
		f.pipe(n.Pipe, s)
		f.list(n.List, s.child())
		f.list(n.ElseList, s.child())
	case *parse.WithNode:
		body := s.child()
		body.dot = f.pipe(n.Pipe, body)
		body.rebound, body.reboundLine = "with", f.lineOf(n)
		f.list(n.List, body)
		f.list(n.ElseList, s.child())
	case *parse.RangeNode:
		body := s.child()
		list := f.pipe(n.Pipe, body)
		elem := siteValue{}
		if list.ok {
			elem = siteValue{node: list.node.Elem(), path: list.path + "[]", ok: true}
		}
		if len(n.Pipe.Decl) > 0 {
			body.vars[n.Pipe.Decl[len(n.Pipe.Decl)-1].Ident[0]] = elem
			if len(n.Pipe.Decl) == 2 {
				body.vars[n.Pipe.Decl[0].Ident[0]] = siteValue{}
			}
		}
		body.dot, body.rebound, body.reboundLine = elem, "range", f.lineOf(n)
		f.list(n.List, body)
		f.list(n.ElseList, s.child())
	case *parse.TemplateNode:
		if n.Pipe != nil {
			f.pipe(n.Pipe, s)
		}
	case *parse.ListNode:
		f.list(n, s)
	}
}

// pipe evaluates a pipeline, declaring its variable in s.
func (f *siteFinder) pipe(p *parse.PipeNode, s *siteScope) siteValue {
	if p == nil {
		return siteValue{}
	}
	var v siteValue
	for i, c := range p.Cmds {
		v = f.command(c, s, v, i > 0)
	}
	if len(p.Decl) == 1 {
		s.vars[p.Decl[0].Ident[0]] = v
	}
	return v
}

// command evaluates one command; prev is the value piped into it.
func (f *siteFinder) command(c *parse.CommandNode, s *siteScope, prev siteValue, piped bool) siteValue {
	if len(c.Args) == 0 {
		return siteValue{}
	}
	vals := make([]siteValue, len(c.Args))
	for i, a := range c.Args {
		vals[i] = f.arg(a, s)
	}
	id, call := c.Args[0].(*parse.IdentifierNode)
	if !call {
		return vals[0]
	}
	args := vals[1:]
	if piped {
		args = append(args, prev)
	}
	switch {
	case id.Ident == "get" || id.Ident == "index":
		if len(c.Args) == 3 {
			if name, ok := c.Args[2].(*parse.StringNode); ok {
				return siteField(vals[1], name.Text, f.v)
			}
		}
	case funcs.KeepsElements(id.Ident) && len(args) > 0:
		return args[len(args)-1]
	case id.Ident == "concat" && !piped && len(args) > 0:
		// Lists that are one list of the schema, filtered or sorted, as
		// package lint's sameList has them.
		for _, a := range args {
			if !a.ok || a.path != args[0].path {
				return siteValue{}
			}
		}
		return args[0]
	}
	return siteValue{}
}

func (f *siteFinder) arg(a parse.Node, s *siteScope) siteValue {
	switch a := a.(type) {
	case *parse.DotNode:
		return s.dot
	case *parse.FieldNode:
		f.match(a, a.Ident, s.dot, true, s)
		return siteFields(s.dot, a.Ident, f.v)
	case *parse.VariableNode:
		base := s.vars[a.Ident[0]]
		f.match(a, a.Ident[1:], base, false, s)
		return siteFields(base, a.Ident[1:], f.v)
	case *parse.ChainNode:
		base := f.arg(a.Node, s)
		f.match(a, a.Field, base, false, s)
		return siteFields(base, a.Field, f.v)
	case *parse.PipeNode:
		return f.pipe(a, s.child())
	}
	return siteValue{}
}

// match records the node when it is the one that failed.
func (f *siteFinder) match(n parse.Node, names []string, from siteValue, dotRead bool, s *siteScope) {
	if f.found != nil {
		return
	}
	loc, context := f.tree.ErrorContext(n)
	if loc != f.loc || (f.at != "" && context != f.at) {
		return
	}
	f.found = &fieldSite{node: n, names: names, from: from, dotRead: dotRead,
		rebound: s.rebound, reboundLine: s.reboundLine, input: f.input}
}

func siteFields(v siteValue, names []string, variant *Variant) siteValue {
	for _, name := range names {
		v = siteField(v, name, variant)
	}
	return v
}

// siteField steps from v into name; nothing is known past a name the schema
// does not define, or one the engine adds (ids, budget).
func siteField(v siteValue, name string, variant *Variant) siteValue {
	if !v.ok || (v.root && variant.engineName(name)) {
		return siteValue{}
	}
	child, status := v.node.Field(name)
	if status == schema.Unknown {
		return siteValue{}
	}
	return siteValue{node: child, path: v.path + "." + name, ok: true}
}

// engineName reports whether name is one the engine adds to the input:
// an id of the manifest, or budget.
func (v *Variant) engineName(name string) bool {
	_, id := v.manifest.IDs[name]
	return id || name == "budget"
}

// rootNames lists the names the whole input has: the schema's properties
// and the engine's own.
func (v *Variant) rootNames(root schema.Node) []string {
	names := append(root.Names(), slices.Sorted(maps.Keys(v.manifest.IDs))...)
	return append(names, "budget")
}
