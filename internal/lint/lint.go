// Package lint checks a variant's templates against its input schema
// before any input is rendered: every field a template reads, in every
// branch, must be one the schema defines, and an optional field must be
// read behind a guard. It walks text/template's parse trees, following
// what the dot is inside with and range, and what variables hold.
package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// Severity says whether a finding fails lint.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	// Info is a report, not a problem: render lint lists it apart.
	Info Severity = "info"
)

// Kind says what a finding is about, and so where render lint lists it.
type Kind string

const (
	// KindLint is a problem of the library: a template, the manifest, the
	// schema, an example that does not render or fails its checks.
	KindLint Kind = "lint"
	// KindGolden is a golden file that differs from what its example
	// renders, is missing, or that no example produces. It is always a
	// warning: render test is what fails on golden files.
	KindGolden Kind = "golden"
	// KindCoverage is a branch of a template that no example takes
	// (render lint --cover). It is always a warning.
	KindCoverage Kind = "coverage"
	// KindCache is the report of where a variant's cacheable prefix ends
	// and why (render lint). It is always information.
	KindCache Kind = "cache"
)

// Finding is one thing lint found, at file:line:col.
type Finding struct {
	Position string   `json:"position"`
	Severity Severity `json:"severity"`
	Kind     Kind     `json:"kind"`
	// Message says what is wrong, and, for a problem examples hit, which.
	Message string `json:"message"`
	// Count is how many examples hit the problem, for one found by
	// rendering them; 0 for the others.
	Count int `json:"count,omitempty"`
	// Examples are the examples that hit it, sorted.
	Examples []string `json:"examples,omitempty"`
	// Same, when set, makes findings at one position the same finding
	// whatever their messages say of each example: a check of the manifest
	// that fails says where in each example's prompt, but it is one entry
	// of prompt.yaml to fix.
	Same string `json:"-"`
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s: %s", f.Position, f.Severity, f.Message) }

// Templates is what the template check needs of a variant.
type Templates struct {
	Set *template.Template
	// Dir is the variant's folder as the author sees it ("templates/space").
	Dir string
	// Root is the schema of the variant's input.
	Root schema.Node
	// Extra are the names the engine adds to the input (ids, budget).
	Extra []string
	// RootData reports whether a template runs on the whole input (a
	// section, a mode chosen by template_choice, a condition); the others
	// (partials, defines) run on whatever their caller passes.
	RootData func(name string) bool
	// Section reports whether a template is a section's or one that
	// template_choice picks: markdown of its own, where a code fence it
	// opens must close. Nil: no template is.
	Section func(name string) bool
	// Variant names the variant, for the findings about its schema.
	Variant string
	// SchemaFile is the variant's schema as the author finds it
	// ("schemas/space.schema.json"), for the fixes made there.
	SchemaFile string
	// Properties, when not nil, are the properties of the variant's schema
	// (schema.Schema.Declared): those no template reads, nor Used names, are
	// warned of.
	Properties []schema.Property
	// Text, when not nil, gives a template's text by the file it was
	// parsed from, so that positions are found from an index of its lines
	// rather than by scanning the text for each node.
	Text func(parseName string) (string, bool)
	// Used are the input fields the engine reads for the manifest (ids,
	// rules, verbatim limits, the log, budgets), as JSON pointers with *:
	// each is read whole.
	Used []string
}

// Check walks every template of the set, and warns of what none uses: a
// partial (_name.tmpl) no template includes, and, given Properties, a
// property of the schema no template reads.
func Check(t Templates) []Finding {
	w := &walker{t: t, lines: problem.NewLines(t.Text), seen: map[string]bool{}, followed: map[string]bool{}, refs: map[string]map[string]bool{}}
	for _, tmpl := range t.Set.Templates() {
		if tmpl.Tree == nil || tmpl.Tree.Root == nil {
			continue
		}
		w.tree = tmpl.Tree
		root := value{open: true}
		if t.RootData(tmpl.Name()) {
			root = value{node: t.Root, path: "", root: true}
		}
		w.list(tmpl.Tree.Root, newScope(root))
		if t.Section != nil && t.Section(tmpl.Name()) {
			w.fences(tmpl.Tree)
		}
	}
	w.partials()
	if t.Properties != nil {
		w.unread()
	}
	slices.SortStableFunc(w.out, func(a, b Finding) int { return problem.ComparePositions(a.Position, b.Position) })
	return w.out
}

func newScope(dot value) *scope {
	return &scope{dot: dot, vars: map[string]value{"$": dot}, guards: map[string]bool{}, tests: map[string]test{}}
}

type walker struct {
	t     Templates
	tree  *parse.Tree
	lines *problem.Lines
	out   []Finding
	seen  map[string]bool
	// quiet is above 0 while the walker follows a partial with what its
	// caller passes: it records what is read there, and reports nothing
	// (the partial is checked on its own).
	quiet int
	// via, while the walker follows a partial with what its callers pass
	// (not quietly), says where each caller passes what: a finding there is
	// about that value, which the partial's own walk does not know.
	via []string
	// followed are the partials followed, by name and what they ran on.
	followed map[string]bool
	// reads are the input fields read, as JSON pointers with *.
	reads []read
	// refs are the templates named by template or include, with the files
	// of the templates that name them.
	refs map[string]map[string]bool
	// patterns are the names include builds with printf, as patterns
	// ("modes/%s.md.tmpl" as ^modes/.*\.md\.tmpl$); anyName is set when an
	// include's name is built in a way lint cannot follow, which any
	// template may be.
	patterns []*regexp.Regexp
	anyName  bool
	// sites is set by Reads: each read is noted with the template walked
	// from the top (top) and the place of the action that reads it (at).
	sites bool
	top   string
	at    parse.Node
	uses  []Read
}

// read is an input field a template reads: whole when it uses the value
// as it is (prints it, passes it to a function), so that everything
// inside it is read too.
type read struct {
	path  []string
	whole bool
}

// value is what an expression gives: a place in the schema, or nothing
// known (open).
type value struct {
	node schema.Node
	path string // the JSON pointer of the place, for guards
	open bool
	root bool // the whole input, where the engine's own names also stand
	// kind is the JSON type of a value the schema does not give but a
	// function does (len gives an integer, printf a string), or "".
	kind string
}

type scope struct {
	dot    value
	vars   map[string]value
	guards map[string]bool // fields tested with hasKey or read with get
	// tests are variables that hold a hasKey test: {{ $root := not (hasKey . "parent") }}.
	tests map[string]test
	// rebound is "with" or "range" inside one, where the dot is not the
	// input; reboundLine is that action's line.
	rebound     string
	reboundLine int
}

// test is a hasKey test of the field at path, negated or not.
type test struct {
	path    string
	negated bool
}

func (s *scope) child() *scope {
	c := &scope{dot: s.dot, vars: map[string]value{}, guards: map[string]bool{}, tests: map[string]test{},
		rebound: s.rebound, reboundLine: s.reboundLine}
	for k, v := range s.vars {
		c.vars[k] = v
	}
	for k := range s.guards {
		c.guards[k] = true
	}
	for k, v := range s.tests {
		c.tests[k] = v
	}
	return c
}

func (w *walker) report(n parse.Node, sev Severity, format string, args ...any) {
	loc := w.lines.Loc(w.tree, n)
	w.reportAt(w.t.Dir+"/"+oneBased(loc), sev, format, args...)
}

// reportAt is report at a position given as file:line:col, col from 1.
func (w *walker) reportAt(pos string, sev Severity, format string, args ...any) {
	if w.quiet > 0 {
		return
	}
	if len(w.via) > 0 {
		if sev != Error {
			return // a guard may stand in the caller
		}
		format += " (in a partial: " + w.via[len(w.via)-1] + ")"
	}
	w.add(Finding{Position: pos, Severity: sev, Kind: KindLint, Message: fmt.Sprintf(format, args...)})
}

// fieldPos is where the i-th of the names node n reads stands, file:line:col
// with col from 1: the "." before it, where an author puts the cursor and
// where a render that fails on it reports it (engine's fieldSite). names
// are those read after the node's first term: all of a field's, those
// after $x of a variable's, those after (...) of a chain's.
// text/template places a field of several names at its second.
func (w *walker) fieldPos(n parse.Node, names []string, i int) string {
	loc := w.lines.Loc(w.tree, n)
	at := strings.LastIndexByte(loc, ':')
	col, err := strconv.Atoi(loc[at+1:])
	if at < 0 || err != nil {
		return w.t.Dir + "/" + loc
	}
	if f, ok := n.(*parse.FieldNode); ok && len(f.Ident) > 1 {
		col -= 1 + len(f.Ident[0])
	}
	for _, name := range names[:i] {
		col += 1 + len(name)
	}
	return w.t.Dir + "/" + loc[:at+1] + strconv.Itoa(col+1)
}

// add adds a finding once.
func (w *walker) add(f Finding) {
	if key := f.String(); !w.seen[key] {
		w.seen[key] = true
		w.out = append(w.out, f)
	}
}

func (w *walker) list(l *parse.ListNode, s *scope) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		w.node(n, s)
	}
}

func (w *walker) node(n parse.Node, s *scope) {
	if w.sites {
		w.at = n
	}
	switch n := n.(type) {
	case *parse.ActionNode:
		v := w.pipe(n.Pipe, s)
		if len(n.Pipe.Decl) == 0 {
			w.use(v) // printed
		}
	case *parse.IfNode:
		body, other := s.child(), s.child()
		w.guardsOf(n.Pipe, body)
		if t, ok := w.testOf(n.Pipe, s); ok {
			if t.negated {
				other.guards[t.path] = true
			} else {
				body.guards[t.path] = true
			}
		}
		w.pipe(n.Pipe, s)
		w.list(n.List, body)
		w.list(n.ElseList, other)
	case *parse.WithNode:
		body := s.child()
		w.guardsOf(n.Pipe, body)
		body.dot = w.pipe(n.Pipe, s)
		w.declare(n.Pipe, body, body.dot)
		body.rebound, body.reboundLine = "with", w.line(n)
		w.list(n.List, body)
		w.list(n.ElseList, s.child())
	case *parse.RangeNode:
		v := w.pipe(n.Pipe, s)
		w.checkRange(n, v)
		elem := value{open: true}
		if !v.open {
			elem = value{node: v.node.Elem(), path: v.path + "/*"}
		}
		body := s.child()
		body.dot = elem
		body.rebound, body.reboundLine = "range", w.line(n)
		if len(n.Pipe.Decl) == 2 {
			body.vars[n.Pipe.Decl[0].Ident[0]] = value{open: true}
			body.vars[n.Pipe.Decl[1].Ident[0]] = elem
		} else if len(n.Pipe.Decl) == 1 {
			body.vars[n.Pipe.Decl[0].Ident[0]] = elem
		}
		w.list(n.List, body)
		w.list(n.ElseList, s.child())
	case *parse.TemplateNode:
		w.refer(n.Name)
		if w.t.Set.Lookup(n.Name) == nil {
			w.report(n, Error, "no template %q%s", n.Name, w.noTemplate(n.Name))
		}
		if n.Pipe != nil {
			w.follow(n.Name, w.pipe(n.Pipe, s), n)
		}
	case *parse.ListNode:
		w.list(n, s)
	}
}

// pipe evaluates a pipeline and declares its variables.
func (w *walker) pipe(p *parse.PipeNode, s *scope) value {
	if p == nil {
		return value{open: true}
	}
	v := value{open: true}
	for i, c := range p.Cmds {
		if i == 0 {
			v = w.command(c, s, nil)
		} else {
			prev := v
			v = w.command(c, s, &prev)
		}
	}
	w.declare(p, s, v)
	return v
}

func (w *walker) declare(p *parse.PipeNode, s *scope, v value) {
	if p != nil && len(p.Decl) == 1 && !p.IsAssign {
		s.vars[p.Decl[0].Ident[0]] = v
		if t, ok := w.testOf(p, s); ok {
			s.tests[p.Decl[0].Ident[0]] = t
		}
	}
}

// testOf reads a condition that is a hasKey test, a negated one, or a
// variable holding one.
func (w *walker) testOf(p *parse.PipeNode, s *scope) (test, bool) {
	if p == nil || len(p.Cmds) != 1 {
		return test{}, false
	}
	args := p.Cmds[0].Args
	if len(args) == 1 {
		if v, ok := args[0].(*parse.VariableNode); ok && len(v.Ident) == 1 {
			t, ok := s.tests[v.Ident[0]]
			return t, ok
		}
		if inner, ok := args[0].(*parse.PipeNode); ok {
			return w.testOf(inner, s)
		}
	}
	id, ok := args[0].(*parse.IdentifierNode)
	if !ok {
		return test{}, false
	}
	switch {
	case id.Ident == "not" && len(args) == 2:
		if inner, ok := args[1].(*parse.PipeNode); ok {
			t, ok := w.testOf(inner, s)
			t.negated = !t.negated
			return t, ok
		}
	case id.Ident == "hasKey" && len(args) == 3:
		obj := w.arg(args[1], s)
		if name, ok := args[2].(*parse.StringNode); ok && !obj.open {
			return test{path: obj.path + "/" + name.Text}, true
		}
	}
	return test{}, false
}

// command evaluates one command of a pipeline; piped, when not nil, is
// the value of the previous command, appended to its arguments.
func (w *walker) command(c *parse.CommandNode, s *scope, piped *value) value {
	if len(c.Args) == 0 {
		return value{open: true}
	}
	id, isCall := c.Args[0].(*parse.IdentifierNode)
	if !isCall {
		return w.arg(c.Args[0], s)
	}
	args := c.Args[1:]
	vals := make([]value, len(args))
	defer func() { w.usesOf(id.Ident, args, vals, piped) }()
	if id.Ident == "and" || id.Ident == "or" {
		// An operand runs only when those before it held (and) or failed
		// (or): what an operand guards guards those after it in an and; in
		// an or only not hasKey does.
		inner := s.child()
		for i, a := range args {
			vals[i] = w.arg(a, inner)
			if id.Ident == "and" {
				w.operandGuards(a, inner)
			} else if p, ok := a.(*parse.PipeNode); ok {
				if t, ok := w.testOf(p, inner); ok && t.negated {
					inner.guards[t.path] = true
				}
			}
		}
		return value{open: true}
	}
	for i, a := range args {
		if (id.Ident == "get" || id.Ident == "hasKey" || id.Ident == "index") && i == 0 {
			vals[i] = w.base(a, s)
			continue
		}
		vals[i] = w.arg(a, s)
	}
	w.checkCall(id, args, vals, piped)
	switch id.Ident {
	case "get", "index", "hasKey":
		if len(args) >= 2 {
			if name, ok := args[1].(*parse.StringNode); ok && !vals[0].open && !notObject(vals[0]) {
				child := w.field(args[1], vals[0], name.Text, s, false)
				if id.Ident != "hasKey" {
					return child
				}
			}
			if _, ok := args[1].(*parse.NumberNode); ok && id.Ident == "index" && len(args) == 2 && !vals[0].open && slices.Equal(vals[0].node.Types(), []string{"array"}) {
				return value{node: vals[0].node.Elem(), path: vals[0].path + "/*"}
			}
		}
	case "include":
		if len(args) >= 1 {
			if name, ok := args[0].(*parse.StringNode); ok && w.t.Set.Lookup(name.Text) == nil {
				w.report(args[0], Error, "include %q: no such template%s", name.Text, w.noTemplate(name.Text))
			}
			data := value{open: true}
			if len(vals) >= 2 {
				data = vals[1]
			}
			w.include(args[0], data)
		}
	case "find":
		if len(vals) == 3 && !vals[2].open {
			return value{node: vals[2].node.Elem(), path: vals[2].path + "/*"}
		}
	case "len", "add", "sub", "mul", "div", "mod", "add1", "sub1", "max", "min":
		return value{open: true, kind: "integer"}
	case "printf", "print", "upper", "lower", "trim", "title", "join", "quote", "squote", "toString":
		return value{open: true, kind: "string"}
	}
	if funcs.KeepsElements(id.Ident) && len(vals) > 0 && piped == nil {
		return vals[len(vals)-1]
	}
	if id.Ident == "concat" && piped == nil {
		return sameList(vals)
	}
	return value{open: true}
}

// noTemplate is what follows "no template NAME": the name meant, the
// templates there are, and the file to create.
func (w *walker) noTemplate(name string) string {
	names := funcs.TemplateNames(w.t.Set)
	out := ""
	// Names are compared without their extensions, which they share.
	stem := func(n string) string { s, _, _ := strings.Cut(n, "."); return s }
	byStem := map[string]string{}
	var stems []string
	for _, n := range strings.Split(names, ", ") {
		byStem[stem(n)] = n
		stems = append(stems, stem(n))
	}
	if near := phrase.Closest(stem(name), stems); near != "" {
		out = fmt.Sprintf("; did you mean %q?", byStem[near])
	}
	return out + fmt.Sprintf("; the templates are: %s; name one of them, or create %s/%s", names, w.t.Dir, name)
}

// notObject reports whether the schema says a value is never an object
// (index of a list by a name is checkIndex's to report).
func notObject(v value) bool {
	t := v.node.Types()
	return len(t) > 0 && !slices.Contains(t, "object")
}

// sameList is what concat gives of lists: one of their elements, when each
// is the same list of the schema (its items filtered or sorted, as
// concat (where "p" "high" .goals) (where "p" "low" .goals) has them), and
// nothing known otherwise.
func sameList(vals []value) value {
	if len(vals) == 0 {
		return value{open: true}
	}
	for _, v := range vals {
		if v.open || v.path != vals[0].path {
			return value{open: true}
		}
	}
	return vals[0]
}

// base evaluates the object get, index and hasKey look into, which they
// may read without a guard.
func (w *walker) base(a parse.Node, s *scope) value { return w.arg(a, s) }

// arg evaluates one argument.
func (w *walker) arg(a parse.Node, s *scope) value {
	switch a := a.(type) {
	case *parse.DotNode:
		return s.dot
	case *parse.FieldNode:
		return w.fields(a, s.dot, a.Ident, s)
	case *parse.VariableNode:
		v, ok := s.vars[a.Ident[0]]
		if !ok {
			v = value{open: true}
		}
		return w.fields(a, v, a.Ident[1:], s)
	case *parse.ChainNode:
		return w.fields(a, w.arg(a.Node, s), a.Field, s)
	case *parse.PipeNode:
		return w.pipe(a, s.child())
	}
	return value{open: true}
}

// fields follows a path of field names from v.
func (w *walker) fields(n parse.Node, v value, names []string, s *scope) value {
	for i, name := range names {
		pos := w.fieldPos(n, names, i)
		if _, dotRead := n.(*parse.FieldNode); dotRead && i == 0 && w.misreadInput(pos, v, names, s) {
			return value{open: true}
		}
		if i == 0 && len(names) > 1 && v.root && !v.open && slices.Contains(w.t.Extra, name) {
			// A path into a name of the engine's own (.budget.omitted.skills)
			// is a read of that path, not of all of it: a fit's count of
			// one unit depends on that unit alone.
			if w.sites {
				w.record(v.path+"/"+strings.Join(names, "/"), true)
			}
			return value{open: true}
		}
		v = w.fieldAt(pos, v, name, s, true)
	}
	return v
}

// misreadInput reports a field read from the dot inside with or range that
// the dot has not and the input has: the author meant $, as a render that
// fails there says too.
func (w *walker) misreadInput(pos string, dot value, names []string, s *scope) bool {
	root, ok := s.vars["$"]
	if s.rebound == "" || dot.open || !ok || root.open || !root.root {
		return false
	}
	if _, status := dot.node.Field(names[0]); status != schema.Unknown {
		return false
	}
	if _, status := root.node.Field(names[0]); status == schema.Unknown && !slices.Contains(w.t.Extra, names[0]) {
		return false
	}
	text := "." + strings.Join(names, ".")
	w.reportAt(pos, Error, "%s reads %q from the dot, which inside the {{ %s }} of line %d is %s (which has no field %q), not the input; "+
		"inside with/range the dot is the current item; the top-level input is $: write $%s",
		text, names[0], s.rebound, s.reboundLine, pathText(dot.path), names[0], text)
	return true
}

// line is the line of node n in the template walked.
func (w *walker) line(n parse.Node) int {
	return w.lines.Line(w.tree, n)
}

// field steps from v into name, reporting a field the schema does not
// define, and, when read is true (a plain .a, not get or hasKey), an
// optional field read outside a guard.
func (w *walker) field(n parse.Node, v value, name string, s *scope, read bool) value {
	loc := w.lines.Loc(w.tree, n)
	return w.fieldAt(w.t.Dir+"/"+oneBased(loc), v, name, s, read)
}

// fieldAt is field, reporting at pos.
func (w *walker) fieldAt(pos string, v value, name string, s *scope, read bool) value {
	if v.open {
		return value{open: true}
	}
	path := v.path + "/" + name
	if v.root && slices.Contains(w.t.Extra, name) {
		if w.sites {
			w.record(path, true) // an id or the budget, which Reads' caller knows the sources of
		}
		return value{open: true}
	}
	child, status := v.node.Field(name)
	switch status {
	case schema.Unknown:
		if len(w.via) > 0 && (!read || s.guards[path]) {
			// In a partial, a test for a field that one caller's value
			// lacks is how it serves several.
			return value{open: true}
		}
		if t := v.node.Types(); len(t) > 0 && !slices.Contains(t, "object") {
			// A field read on a text, a number, a list: it has no fields.
			w.reportAt(pos, Error, "%s: %s is %s, which has no fields (the render stops: \"can't evaluate field %s\"); write it without .%s to read it, or make it an object with a property %q in the schema%s",
				pathText(path), objectText(v.path), article(v.node.Words()), name, name, name, w.inSchema())
			return value{open: true}
		}
		msg := fmt.Sprintf("%s: the schema defines no field %q here", pathText(path), name)
		known := v.node.Names()
		if v.root {
			known = append(known, w.t.Extra...)
		}
		if near := phrase.Closest(name, known); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		} else if len(known) > 0 {
			msg += "; the fields here are: " + strings.Join(known, ", ")
		}
		w.reportAt(pos, Error, "%s", msg)
		return value{open: true}
	case schema.Declared:
		if read && v.node.Optional(name) && !s.guards[path] && !strings.Contains(v.path, "*") {
			w.reportAt(pos, Warning, "%s is optional (not required, no default): reading it fails when an input leaves it out; guard it with {{ if hasKey %s %q }} or read it with get %s %q",
				pathText(path), objectText(v.path), name, objectText(v.path), name)
		}
	}
	w.record(path, false)
	return value{node: child, path: path}
}

// guardsOf marks the fields a condition makes safe to read where it holds:
// those it tests with hasKey, reads with get, or tests for being set (if .a:
// templates run with missingkey=error, so the condition itself fails when
// .a is missing), and all those of the operands of an and, which holds only
// when each of them does. An or guards none: it holds when any one does.
func (w *walker) guardsOf(p *parse.PipeNode, s *scope) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		w.commandGuards(c, s)
	}
}

// commandGuards marks the fields one command of a condition guards.
func (w *walker) commandGuards(c *parse.CommandNode, s *scope) {
	if len(c.Args) == 1 {
		w.operandGuards(c.Args[0], s)
		return
	}
	id, ok := c.Args[0].(*parse.IdentifierNode)
	if !ok {
		return
	}
	switch {
	case (id.Ident == "hasKey" || id.Ident == "get") && len(c.Args) >= 3:
		obj := w.arg(c.Args[1], s)
		if name, ok := c.Args[2].(*parse.StringNode); ok && !obj.open {
			s.guards[obj.path+"/"+name.Text] = true
		}
	case id.Ident == "and":
		// In order: an operand runs only once those before it held, so
		// their guards are its own, as they are the body's.
		for _, a := range c.Args[1:] {
			w.operandGuards(a, s)
		}
	}
}

// operandGuards marks the fields one operand guards where it holds: a
// condition in parentheses, a variable holding a hasKey test, or a field
// read (with every field on its way).
func (w *walker) operandGuards(a parse.Node, s *scope) {
	switch a := a.(type) {
	case *parse.PipeNode:
		w.guardsOf(a, s)
		if t, ok := w.testOf(a, s); ok && !t.negated {
			s.guards[t.path] = true
		}
	case *parse.VariableNode:
		if t, ok := s.tests[a.Ident[0]]; ok && len(a.Ident) == 1 && !t.negated {
			s.guards[t.path] = true
			return
		}
		w.readGuards(a, s)
	case *parse.FieldNode, *parse.ChainNode:
		w.readGuards(a, s)
	}
}

// readGuards marks a field an operand reads, and the fields on its way.
func (w *walker) readGuards(a parse.Node, s *scope) {
	v := w.arg(a, s)
	if v.open {
		return
	}
	for p := v.path; p != ""; p = p[:strings.LastIndexByte(p, '/')] {
		s.guards[p] = true
	}
}

// pathText writes a pointer as the template path it is: /a/*/b as .a[].b.
func pathText(p string) string {
	return "." + strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/*", "[]"), "/", ".")
}

func objectText(p string) string {
	if p == "" {
		return "."
	}
	return pathText(p)
}
