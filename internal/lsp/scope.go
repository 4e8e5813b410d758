package lsp

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// What the dot is at a place of a template, as the schema describes it:
// the input at the top of a section, the current item inside range, what
// with tested inside with; $ is the template's data, variables hold what
// was assigned. A zero schema.Node is a value the schema says nothing of.

// frame is one block open at a place: what opened it and the dot in it.
type frame struct {
	keyword string // if, with, range, define, block, or "" for the template
	dot     schema.Node
	outer   schema.Node // the dot outside: what else of with and range sees
	vars    map[string]schema.Node
}

// scope is the blocks open at a place, innermost last.
type scope struct {
	frames []*frame
	root   schema.Node // $
	// at is the index of the action being read; open the defines still
	// open at the place (see openDefines).
	at   int
	open map[int]bool
}

func (s *scope) dot() schema.Node { return s.frames[len(s.frames)-1].dot }

// inDefine reports whether the place is inside a define, where $ is what
// its callers pass.
func (s *scope) inDefine() bool {
	return slices.ContainsFunc(s.frames, func(f *frame) bool { return f.keyword == "define" })
}

func (s *scope) variable(name string) schema.Node {
	for i := len(s.frames) - 1; i >= 0; i-- {
		if n, ok := s.frames[i].vars[name]; ok {
			return n
		}
	}
	if name == "$" {
		return s.root
	}
	return schema.Node{}
}

// analysis is a variant's templates as an editor's features read them.
type analysis struct {
	sn      *snapshot
	v       *engine.Variant
	variant string
	dir     string // "templates/<variant>/"
	depth   int    // how many callers were followed to find a partial's data
	// calls is how many more call sites may be followed to find what
	// partials and defines run on, shared by the analyses of callers:
	// each follows the callers' files, and a library may hold many.
	calls *int
}

// maxCallsFollowed bounds the call sites one request follows to learn
// what a partial or a define runs on.
const maxCallsFollowed = 32

// analysis reads the variant's templates in the snapshot. A variant the
// text as typed breaks (an action half written) is read with its last
// version that loaded, so that completion goes on while the author types.
func (s *Server) analysis(sn *snapshot, variant string) *analysis {
	calls := maxCallsFollowed
	a := &analysis{sn: sn, variant: variant, dir: "templates/" + variant + "/", calls: &calls}
	a.v = s.variant(sn, variant)
	return a
}

// scopeAt is the scope at offset off of the template name, whose text is
// text: what every action before it opened, closed and assigned.
func (a *analysis) scopeAt(name, text string, off int) *scope {
	root := a.dataOf(name)
	sc := &scope{frames: []*frame{{dot: root, vars: map[string]schema.Node{}}}, root: root}
	var words [][]token
	for _, act := range actions(text) {
		if act.end > off || !act.closed {
			break
		}
		words = append(words, tokens(text, act.body, act.bodyEnd))
	}
	sc.open = openDefines(words)
	for i, toks := range words {
		sc.at = i
		a.step(sc, toks)
	}
	return sc
}

// openDefines are the indexes of the actions that start a define still
// open after the last of them: only there is what its callers pass looked
// for (each look reads the callers' files).
func openDefines(words [][]token) map[int]bool {
	var stack []int // the action that opened each block, -1 for other blocks than define
	for i, toks := range words {
		if len(toks) == 0 || toks[0].kind != tokWord {
			continue
		}
		switch toks[0].text {
		case "define":
			stack = append(stack, i)
		case "if", "with", "range", "block":
			stack = append(stack, -1)
		case "end":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	out := map[int]bool{}
	for _, i := range stack {
		if i >= 0 {
			out[i] = true
		}
	}
	return out
}

// step applies one action's words to the scope.
func (a *analysis) step(sc *scope, toks []token) {
	if len(toks) == 0 || toks[0].kind == tokComment {
		return
	}
	top := sc.frames[len(sc.frames)-1]
	// open makes the frame a block opens; its pipeline is read in the
	// scope outside it (the dot there), its variables are the block's.
	open := func(keyword string) *frame {
		return &frame{keyword: keyword, dot: top.dot, outer: top.dot, vars: map[string]schema.Node{}}
	}
	push := func(f *frame) { sc.frames = append(sc.frames, f) }
	kw := ""
	if toks[0].kind == tokWord {
		kw = toks[0].text
	}
	switch kw {
	case "if":
		f := open("if")
		a.declare(sc, f, toks[1:], false)
		push(f)
	case "with":
		f := open("with")
		f.dot = a.declare(sc, f, toks[1:], false)
		push(f)
	case "range":
		f := open("range")
		f.dot = a.declare(sc, f, toks[1:], true)
		push(f)
	case "define":
		// a define runs on what its callers pass: its dot and its $
		f := open("define")
		f.dot = schema.Node{}
		if len(toks) > 1 && toks[1].kind == tokString && sc.open[sc.at] {
			if name, err := strconv.Unquote(toks[1].text); err == nil {
				f.dot = a.dataOf(name)
			}
		}
		f.vars["$"] = f.dot
		push(f)
	case "block":
		f := open("block")
		f.dot = a.resolve(sc, parsePipe(afterName(toks[1:])))
		push(f)
	case "else":
		if len(sc.frames) == 1 {
			return
		}
		if top.keyword == "with" || top.keyword == "range" {
			top.dot = top.outer
		}
		if len(toks) > 1 && toks[1].kind == tokWord {
			switch toks[1].text {
			case "with":
				top.keyword = "with"
				top.dot = a.declare(sc, top, toks[2:], false)
			case "if":
				top.keyword = "if"
			}
		}
	case "end":
		if len(sc.frames) > 1 {
			sc.frames = sc.frames[:len(sc.frames)-1]
		}
	default:
		a.declare(sc, top, toks, false)
	}
}

// afterName drops the quoted name that define and block start with.
func afterName(toks []token) []token {
	if len(toks) > 0 && toks[0].kind == tokString {
		return toks[1:]
	}
	return toks
}

// declare resolves a pipeline that may assign variables ($x := ..., or
// range's $i, $e := ...) into frame f, and returns its value (for range,
// the value of its elements).
func (a *analysis) declare(sc *scope, f *frame, toks []token, isRange bool) schema.Node {
	var names []string
	assign := false // $x = ...: the variable declared before changes
	for i, t := range toks {
		if t.kind == tokDeclare {
			assign = t.text == "="
			for _, v := range toks[:i] {
				if v.kind == tokField && strings.HasPrefix(v.text, "$") {
					names = append(names, v.text)
				}
			}
			toks = toks[i+1:]
			break
		}
	}
	val := a.resolve(sc, parsePipe(toks))
	if isRange {
		val = val.Elem()
	}
	switch {
	case len(names) == 1 && assign:
		for i := len(sc.frames) - 1; i >= 0; i-- {
			if _, ok := sc.frames[i].vars[names[0]]; ok {
				f = sc.frames[i]
				break
			}
		}
		f.vars[names[0]] = val
	case len(names) == 1:
		f.vars[names[0]] = val
	case len(names) == 2 && isRange:
		f.vars[names[0]] = schema.Node{}
		f.vars[names[1]] = val
	}
	return val
}

// keepsElements reports whether a function's result is a list of the
// elements of the list it is given last (or that value itself).
func keepsElements(fn string) bool {
	switch fn {
	case "take", "takeLast", "sortBy", "sortByDesc", "where", "whereNot", "whereIn", "concat",
		"reverse", "uniq", "compact", "initial", "rest", "sortAlpha", "default":
		return true
	}
	return false
}

// firstOf reports whether a function's result is one element of the list
// it is given last.
func firstOf(fn string) bool { return fn == "first" || fn == "last" || fn == "find" }

// resolve is the value of a pipeline, as far as the schema tells it.
func (a *analysis) resolve(sc *scope, pipe [][]expr) schema.Node {
	var val schema.Node
	for i, cmd := range pipe {
		if len(cmd) == 0 {
			return schema.Node{}
		}
		head := cmd[0]
		switch {
		case head.pipe != nil:
			val = a.resolve(sc, head.pipe)
			if len(cmd) > 1 {
				val = schema.Node{}
			}
		case head.tok.kind == tokField:
			val = a.chain(sc, head.tok.text)
		case head.tok.kind == tokWord:
			fn := head.tok.text
			var last *expr
			if len(cmd) > 1 {
				last = &cmd[len(cmd)-1]
			}
			var arg schema.Node
			switch {
			case i > 0 && (last == nil || len(cmd) > 1): // a piped value comes last
				arg = val
			case last != nil && last.pipe != nil:
				arg = a.resolve(sc, last.pipe)
			case last != nil && last.tok.kind == tokField:
				arg = a.chain(sc, last.tok.text)
			}
			switch {
			case keepsElements(fn):
				val = arg
			case firstOf(fn):
				val = arg.Elem()
			case (fn == "append" || fn == "mustAppend") && len(cmd) == 3:
				// a list built in the template: of what is appended, or
				// what the list was
				if val = schema.ListOf(arg); val.Open() {
					val = a.operand(sc, cmd[1])
				}
			case fn == "entries":
				val = schema.EntriesOf(arg)
			case fn == "values":
				val = schema.ListOf(arg.Elem())
			case fn == "list" && len(cmd) > 1:
				val = schema.ListOf(a.operand(sc, cmd[1]))
			case fn == "get" && len(cmd) == 3 && cmd[2].tok != nil && cmd[2].tok.kind == tokString:
				key, _ := strconv.Unquote(cmd[2].tok.text)
				val, _ = a.operand(sc, cmd[1]).Field(key)
			case fn == "index" && len(cmd) >= 3:
				val = a.operand(sc, cmd[1]).Elem()
			default:
				val = schema.Node{}
			}
		default:
			val = schema.Node{}
		}
	}
	return val
}

func (a *analysis) operand(sc *scope, e expr) schema.Node {
	if e.pipe != nil {
		return a.resolve(sc, e.pipe)
	}
	if e.tok.kind == tokField {
		return a.chain(sc, e.tok.text)
	}
	return schema.Node{}
}

// chain follows a field chain (.a.b, $.a, $x.a, .) from the scope.
func (a *analysis) chain(sc *scope, text string) schema.Node {
	n, segs := a.base(sc, text)
	for _, s := range segs {
		if s == "" {
			continue
		}
		n, _ = n.Field(s)
	}
	return n
}

// base splits a field chain into the value it starts from and its field
// names: ".a.b" is the dot and [a b], "$x.a" is $x and [a].
func (a *analysis) base(sc *scope, text string) (schema.Node, []string) {
	if strings.HasPrefix(text, "$") {
		name, rest, _ := strings.Cut(text, ".")
		if rest == "" && !strings.Contains(text, ".") {
			return sc.variable(name), nil
		}
		return sc.variable(name), strings.Split(rest, ".")
	}
	if strings.HasPrefix(text, ".") {
		return sc.dot(), strings.Split(text[1:], ".")
	}
	return schema.Node{}, nil
}

// dataOf is the schema of the data a template runs on: the input for a
// section, a template template_choice picks and a check's condition; for
// a partial, what its first caller passes it.
func (a *analysis) dataOf(name string) schema.Node {
	if a.v == nil {
		return schema.Node{}
	}
	if a.runsOnInput(name) {
		return a.v.InputSchema()
	}
	if a.depth >= 3 || a.calls == nil || *a.calls <= 0 {
		return schema.Node{}
	}
	for _, caller := range a.templateFiles() {
		if caller == name {
			continue
		}
		text, ok := a.sn.text(a.dir + caller)
		if !ok {
			continue
		}
		for _, act := range actions(text) {
			toks := tokens(text, act.body, act.bodyEnd)
			at := slices.IndexFunc(toks, func(t token) bool { return t.kind == tokWord && (t.text == "template" || t.text == "include") })
			if at < 0 || at+1 >= len(toks) || toks[at+1].kind != tokString {
				continue
			}
			if n, _ := strconv.Unquote(toks[at+1].text); n != name {
				continue
			}
			if *a.calls <= 0 {
				return schema.Node{}
			}
			*a.calls--
			inner := &analysis{sn: a.sn, v: a.v, variant: a.variant, dir: a.dir, depth: a.depth + 1, calls: a.calls}
			sc := inner.scopeAt(caller, text, act.start)
			rest := toks[at+2:]
			if end := slices.IndexFunc(rest, func(t token) bool { return t.kind == tokPipe || t.kind == tokClose }); end >= 0 {
				rest = rest[:end]
			}
			if n := inner.resolve(sc, [][]expr{append([]expr{{tok: &token{kind: tokWord, text: "default"}}}, parsePipe(rest)[0]...)}); !n.Open() {
				return n // else another caller may pass a value the schema knows
			}
		}
	}
	return schema.Node{}
}

// runsOnInput reports whether the template runs on the whole input.
func (a *analysis) runsOnInput(name string) bool {
	m := a.v.Manifest()
	if strings.HasSuffix(name, ".md.tmpl") && slices.Contains(m.Sections, strings.TrimSuffix(name, ".md.tmpl")) {
		return true
	}
	for _, c := range m.Rules.TemplateChoice {
		if ok, _ := path.Match(c.Templates, name); ok {
			return true
		}
	}
	return false
}

// templateFiles lists the variant's template files, as names of its set.
func (a *analysis) templateFiles() []string {
	var out []string
	for _, p := range a.sn.files.list(strings.TrimSuffix(a.dir, "/")) {
		if strings.HasSuffix(p, ".tmpl") {
			out = append(out, strings.TrimPrefix(p, a.dir))
		}
	}
	return out
}

// extras are the names the engine adds to a variant's input: the
// manifest's ids, and budget when it declares one.
func (a *analysis) extras() []string {
	if a.v == nil {
		return nil
	}
	m := a.v.Manifest()
	var out []string
	for id := range m.IDs {
		out = append(out, id)
	}
	slices.Sort(out)
	if len(m.Budget) > 0 {
		out = append(out, "budget")
	}
	return out
}
