package engine

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// text/template reports "template: NAME:LINE:COL: executing "NAME" at <.x>: msg".
// Authors need the file they edit and the line, then what to do; the rest is
// Go's internals.
var (
	execPos    = regexp.MustCompile(`template: ([^:]+(?:\[\d+\]\.when)?):(\d+)(?::(\d+))?: (?:executing "[^"]*" at <(.*?)>: )?`)
	noKey      = regexp.MustCompile(`map has no entry for key "([^"]*)"`)
	notObject  = regexp.MustCompile(`can't evaluate field (\w+) in type (.+)$`)
	nilPath    = regexp.MustCompile(`nil pointer evaluating [^.]+\.(\w+)`)
	wrongArgs  = regexp.MustCompile(`wrong number of args for (\w+): want (at least )?(\d+) got (\d+)`)
	notDefined = regexp.MustCompile(`function "([^"]*)" not defined`)
	callFail   = regexp.MustCompile(`^error calling (\w+): `)
)

// templateError turns an error of text/template, from parsing or from a
// render, into one an author acts on: the file, line and column they edit,
// what is wrong in their words, and what to write instead.
func (v *Variant) templateError(err error) *Error { return v.templateErrorIn(err, nil) }

// templateErrorIn is templateError for a render of data (nil when there is
// none), which tells the length of a list an index went past.
func (v *Variant) templateErrorIn(err error, data map[string]any) *Error {
	msg := err.Error()
	locs := execPos.FindAllStringSubmatchIndex(msg, -1)
	if locs == nil {
		return &Error{Kind: KindTemplate, Position: v.dir, Reason: msg, Err: err}
	}
	last := locs[len(locs)-1] // the innermost template, for errors inside include
	sub := func(i int) string {
		if last[2*i] < 0 {
			return ""
		}
		return msg[last[2*i]:last[2*i+1]]
	}
	file, line, col, at := sub(1), sub(2), sub(3), sub(4)
	lineNo, _ := strconv.Atoi(line)
	col0 := -1
	if col != "" {
		// text/template counts columns from 0; authors' editors from 1.
		col0, _ = strconv.Atoi(col)
		col = strconv.Itoa(col0 + 1)
	}
	pos := v.position(file, lineNo, col)
	reason := msg[last[1]:]
	reason = callFail.ReplaceAllString(reason, "$1: ")
	if e := engineCause(err, pos, &at, &reason); e != nil {
		return e
	}
	e := &Error{Kind: KindTemplate, Position: pos, Reason: reason, Err: err}
	if at != "" {
		e.Reason += " (in " + at + ")"
	}
	var site *fieldSite
	if col0 >= 0 && at != "" {
		site = v.findFieldSite(file, lineNo, col0, at)
	}
	switch {
	case v.explainTypes(e, reason, file, lineNo, col0, at, data): // an error of types, said in the schema's words
	case noKey.MatchString(reason):
		key := noKey.FindStringSubmatch(reason)[1]
		if (site != nil && v.explainField(e, site, key, "")) || v.explainFromLint(e, key) {
			return e
		}
		obj := "."
		if i := strings.LastIndex(at, "."+key); i > 0 && strings.HasPrefix(at, ".") {
			obj = at[:i]
		}
		// Where the value comes from is past what the schema tells (a
		// function's result, an object of any keys): say what holds anywhere.
		e.Hint(`the value here has no field %q: check the name against what the value holds; if it may be left out, test for it with {{ if hasKey %s %q }} or read it with get %s %q`,
			key, obj, key, obj, key)
	case notObject.MatchString(reason):
		m := notObject.FindStringSubmatch(reason)
		if site != nil && v.explainField(e, site, m[1], typeWords(m[2])) {
			return e
		}
		if !v.explainFromLintAt(e) {
			e.Hint("the value here is not an object; check the path against the schema")
		}
	case nilPath.MatchString(reason):
		if site != nil && v.explainField(e, site, nilPath.FindStringSubmatch(reason)[1], "null") {
			return e
		}
		e.Hint("a value on this path is null or missing; guard it with {{ with ... }}")
	case wrongArgs.MatchString(reason):
		m := wrongArgs.FindStringSubmatch(reason)
		v.explainArgs(e, m[1], m[3], m[4])
	case notDefined.MatchString(reason):
		v.explainFunction(e, notDefined.FindStringSubmatch(reason)[1])
	default:
		if !v.explainFromLintAt(e) {
			e.Hint("fix the template at that line")
		}
	}
	return e
}

// position is the place in the variant's file at line and column; a
// condition of the manifest is named as the manifest's field.
func (v *Variant) position(file string, line int, col string) string {
	pos := v.dir + "/" + file + ":" + strconv.Itoa(line)
	if strings.HasPrefix(file, "prompt.yaml ") {
		pos = v.dir + "/" + file
	}
	if col != "" {
		pos += ":" + col
	}
	return pos
}

// schemaFile is the variant's schema as the author finds it in the library.
func (v *Variant) schemaFile() string { return "schemas/" + v.manifest.Schema + ".schema.json" }

// explainField says what went wrong reading key at site, from what the
// schema says there: the dot rebound by with or range where the input is
// meant, a name near the one written, or a property the schema lacks.
// dotType is what the value read from is when it is not an object ("a
// text", "null"), or "" when it is an object without the key. It reports
// false when the schema says nothing either way.
func (v *Variant) explainField(e *Error, site *fieldSite, key, dotType string) bool {
	k := v.failedName(site, key)
	if k < 0 {
		return false
	}
	obj := siteFields(site.from, site.names[:k], v)
	e.Position = v.sitePosition(site, site.segmentCol(k)) // the name that failed, whatever more there is to say
	if k == 0 && site.dotRead && site.rebound != "" && site.input.ok && declared(site.input, key, v) && !declared(site.from, key, v) {
		v.explainRebound(e, site, key, dotType)
		return true
	}
	if dotType != "" || !obj.ok || obj.node.Open() {
		return false
	}
	_, status := obj.node.Field(key)
	if obj.root && v.engineName(key) {
		return false
	}
	owner := "the input"
	if obj.path != "" {
		owner = obj.path
	}
	switch status {
	case schema.Unknown:
		v.explainUndeclared(e, site, k, key, obj, owner)
		return true
	case schema.Declared:
		if !obj.node.Optional(key) {
			return false // required in some branch only: nothing surer to say
		}
		e.Reason = fmt.Sprintf("%s: this input has no field %q in %s; the schema allows it to be left out", site.text(), key, owner)
		e.Hint(`give it a "default" in %s, or test for it with {{ if hasKey %s %q }} (or read it with get %s %q)`,
			v.schemaFile(), site.objectText(k), key, site.objectText(k), key)
		return true
	}
	return false
}

// failedName is the index in site.names of the name key that failed: the
// first where the schema does not declare it, or else the first; -1 when
// no name is key.
func (v *Variant) failedName(site *fieldSite, key string) int {
	k, obj := -1, site.from
	for i, name := range site.names {
		if name == key {
			if k < 0 {
				k = i
			}
			if !declared(obj, name, v) {
				return i
			}
		}
		obj = siteField(obj, name, v)
	}
	return k
}

// sitePosition is the template position of column col of site's line.
func (v *Variant) sitePosition(site *fieldSite, col int) string {
	return v.position(site.file, site.line, strconv.Itoa(col))
}

// explainRebound: inside with or range, .key reads the current item
// where the input, which is $ there, has key.
func (v *Variant) explainRebound(e *Error, site *fieldSite, key, dotType string) {
	e.Position = v.sitePosition(site, site.startCol())
	what := "the current item"
	if site.rebound == "with" {
		what = "the value it tests"
	}
	has := fmt.Sprintf("which has no field %q", key)
	if dotType != "" {
		has = fmt.Sprintf("%s, which has no fields", dotType)
	}
	text := site.text()
	e.Reason = fmt.Sprintf("%s reads %q from the dot, which inside the {{ %s }} of line %d is %s (%s), not the input",
		text, key, site.rebound, site.reboundLine, what, has)
	e.Hint("inside with/range the dot is the current item; the top-level input is $: write $%s", text)
}

// explainUndeclared: the schema has no property key in obj (owner, as
// the author names it), which site.names[k] reads: the name meant when
// one is near it, or else how to add the property and what fields there
// are.
func (v *Variant) explainUndeclared(e *Error, site *fieldSite, k int, key string, obj siteValue, owner string) {
	e.Reason = fmt.Sprintf("%s: %s has no field %q, and %s defines none", site.text(), owner, key, v.schemaFile())
	where := "to properties"
	if obj.path != "" {
		where = "to the properties of " + obj.path
	}
	known := obj.node.Names()
	if obj.root {
		known = v.rootNames(obj.node)
	}
	if near := phrase.Closest(key, known); near != "" {
		e.Hint("did you mean .%s? write %s", near, site.textWith(k, near))
		e.Hint("if %q is a new field, add it %s in %s", key, where, v.schemaFile())
		return
	}
	e.Hint("the schema has no such property: add it %s in %s", where, v.schemaFile())
	if len(known) > 0 {
		e.Hint("the fields of %s are: %s", owner, strings.Join(known, ", "))
	}
	e.Hint(`once the schema has it, read it with {{ if hasKey %s %q }} unless it is required or has a "default"`, site.objectText(k), key)
}

// declared reports whether the schema names name where v stands.
func declared(v siteValue, name string, variant *Variant) bool {
	if !v.ok {
		return false
	}
	if v.root && variant.engineName(name) {
		return true
	}
	_, status := v.node.Field(name)
	return status == schema.Declared
}

// objectText is the object the site reads its i-th name from, as the
// template writes it there: ".", ".agent", "$t.from".
func (s *fieldSite) objectText(i int) string {
	var b strings.Builder
	if !s.dotRead {
		b.WriteString(strings.TrimSuffix(s.node.String(), "."+strings.Join(s.names, ".")))
	}
	for _, name := range s.names[:i] {
		b.WriteString("." + name)
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

// text is the site's node as written.
func (s *fieldSite) text() string { return s.textWith(-1, "") }

// textWith is the site's node as written, with its i-th name replaced.
func (s *fieldSite) textWith(i int, name string) string {
	names := slices.Clone(s.names)
	if i >= 0 {
		names[i] = name
	}
	var b strings.Builder
	if !s.dotRead {
		// $x.a or (...).a: what stands before the names.
		b.WriteString(strings.TrimSuffix(s.node.String(), "."+strings.Join(s.names, ".")))
	}
	for _, name := range names {
		b.WriteString("." + name)
	}
	return b.String()
}

// typeWords says a Go type of the data as an author reads it.
func typeWords(t string) string {
	return kindWords(t, map[string]string{"string": "a text", "bool": "true or false",
		"int": "a number", "float": "a number", "list": "a list", "map": "an object"})
}

// kindWords says a Go type of the data in the words given for its kind
// (phrase.GoKind): json.Number, a number of the input, is a float's; a
// type of no kind given is "a" and its name.
func kindWords(t string, words map[string]string) string {
	kind := phrase.GoKind(t)
	if t == "json.Number" {
		kind = "float"
	}
	if w, ok := words[kind]; ok {
		return w
	}
	return "a " + t
}

// explainArgs says how a function is called, and for date that it needs a
// time from the input.
func (v *Variant) explainArgs(e *Error, name, want, got string) {
	sig := ""
	for _, f := range funcs.Catalog(nil) {
		if f.Name == name {
			sig = f.Signature
		}
	}
	if sig != "" {
		e.Reason = fmt.Sprintf("%s takes %s: %s; this call gives it %s", name, count(want, "argument"), sig, got)
	}
	if x, ok := funcs.WhyExcluded(name); ok {
		e.Hint("%s: %s", x.Why, x.Instead)
		return
	}
	if sig != "" {
		e.Hint("call it as %s: templates/README.md shows an example", sig)
		return
	}
	e.Hint("see sprig's documentation of %s for its arguments", name)
}

func count(n, what string) string {
	if n == "1" {
		return n + " " + what
	}
	return n + " " + what + "s"
}

// builtins are text/template's own functions, which no FuncMap lists.
func builtins() []string {
	return []string{"and", "call", "html", "index", "slice", "js", "len", "not", "or",
		"print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne"}
}

// explainFunction says why a function a template calls is not there: left
// out on purpose (and what to use instead), or a misspelling.
func (v *Variant) explainFunction(e *Error, name string) {
	e.Reason = fmt.Sprintf("function %q not defined", name)
	if x, ok := funcs.WhyExcluded(name); ok {
		e.Reason += fmt.Sprintf(": it is left out on purpose, as %s", x.Why)
		e.Hint("%s", x.Instead)
		v.hintNow(e, x)
		return
	}
	known := slices.Sorted(maps.Keys(funcs.Map(&funcs.Env{})))
	known = append(known, builtins()...)
	var excluded []string
	for _, x := range funcs.Excluded() {
		if !slices.Contains(known, x) {
			excluded = append(excluded, x)
		}
	}
	near, nearOut := phrase.Closest(name, known), phrase.Closest(name, excluded)
	if near != "" {
		e.Hint("did you mean %s?", near)
	}
	if x, ok := funcs.WhyExcluded(nearOut); ok {
		if near != "" {
			e.Hint("or, if you meant %s: it is left out on purpose, as %s; %s", nearOut, x.Why, x.Instead)
		} else {
			e.Hint("did you mean %s? it is left out on purpose, as %s; %s", nearOut, x.Why, x.Instead)
		}
		v.hintNow(e, x)
	}
	e.Hint("templates/README.md lists the functions a template may call: sprig's, less those that read the clock, randomness or the environment, and the engine's own")
}

// hintNow adds, for a function that reads the clock, that the schema has
// no now field to read the time from instead. Templates parse while the
// schema compiles: loadVariant calls it again once the schema is there.
func (v *Variant) hintNow(e *Error, x funcs.Exclusion) {
	if x.Reads != "the clock" || v.schema == nil || slices.ContainsFunc(e.Hints, func(h string) bool { return strings.Contains(h, "has no now field") }) {
		return
	}
	if _, status := v.schema.Root().Field("now"); status != schema.Declared {
		e.Hint(`%s has no now field yet: add one ({"type": "string", "format": "date-time"}) and have the caller pass the time; render gather can fill it with {field: /now, value: now}`, v.schemaFile())
	}
}

// schemaHints adds to a template's parse error what only the schema
// tells: whether the input has a now field, for a clock function the
// template calls or may have meant.
func (v *Variant) schemaHints(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Err == nil {
		return err
	}
	m := notDefined.FindStringSubmatch(e.Err.Error())
	if m == nil {
		return e
	}
	for _, name := range append([]string{m[1]}, funcs.Excluded()...) {
		meant := func(h string) bool {
			return strings.Contains(h, " "+name+"? it is left out") || strings.Contains(h, " "+name+": it is left out")
		}
		if x, ok := funcs.WhyExcluded(name); ok && (name == m[1] || slices.ContainsFunc(e.Hints, meant)) {
			v.hintNow(e, x)
		}
	}
	return e
}

// parseError is the error for a template that does not parse: src is the
// text of file. A dangling action, a block without {{ end }} and a function
// that is not there are said where the author must act; text/template
// reports them where its parser noticed.
func (v *Variant) parseError(file, src string, err error) *Error {
	msg := err.Error()
	if !strings.Contains(msg, "unterminated") {
		if line, col, text, next, ok := dangling(src); ok && (lineOf(msg) == 0 || line <= lineOf(msg)) {
			pos := v.position(file, line, strconv.Itoa(col))
			runs := "to the end of the file"
			if next > 0 {
				runs = fmt.Sprintf("into the next {{ at line %d", next)
			}
			closed := strings.TrimRight(text, " \t\r-") + " }}"
			if strings.HasSuffix(strings.TrimRight(text, " \t\r"), "-") {
				closed = strings.TrimRight(text, " \t\r-") + " -}}"
			}
			return (&Error{Kind: KindTemplate, Position: pos, Err: err,
				Reason: fmt.Sprintf("the action %q opened here has no closing }}: it runs on %s", strings.TrimSpace(text), runs)}).
				Hint("close it with }} where it ends: %s", closed)
		}
	}
	if word, line, col, ok := unclosed(src); ok && strings.Contains(msg, "unexpected EOF") {
		pos := v.position(file, line, strconv.Itoa(col))
		return (&Error{Kind: KindTemplate, Position: pos, Err: err,
			Reason: fmt.Sprintf("{{%s}} opened at %s is never closed", word, pos)}).
			Hint("add {{ end }} where the %s block should end", word)
	}
	e := v.templateError(err)
	if m := notDefined.FindStringSubmatch(msg); m != nil {
		if line, col, ok := findCall(src, m[1], lineOf(msg)); ok {
			e.Position = v.position(file, line, strconv.Itoa(col))
		}
	}
	return e
}

// lineOf is the line a parse error names, or 0.
func lineOf(msg string) int {
	m := execPos.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

var word = regexp.MustCompile(`[\w$.]+`)

// findCall finds the call of function name on line of src, inside an
// action: its line and 1-based column.
func findCall(src, name string, line int) (int, int, bool) {
	if line < 1 {
		return 0, 0, false
	}
	start := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[start:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		start += i + 1
	}
	end := strings.IndexByte(src[start:], '\n')
	if end < 0 {
		end = len(src) - start
	}
	spans := actionSpans(src)
	for _, m := range word.FindAllStringIndex(src[start:start+end], -1) {
		at := start + m[0]
		if src[at:start+m[1]] != name {
			continue
		}
		for _, s := range spans {
			if at > s[0] && at < s[1] {
				return line, m[0] + 1, true
			}
		}
	}
	return 0, 0, false
}

// actionSpans lists where the actions of src start and end ({{ to }}).
func actionSpans(src string) [][2]int {
	var out [][2]int
	for off := 0; ; {
		i := strings.Index(src[off:], "{{")
		if i < 0 {
			return out
		}
		start := off + i
		end, _ := actionEndOrOpen(src, start+2)
		if end < 0 {
			return append(out, [2]int{start, len(src)})
		}
		out = append(out, [2]int{start, end + 2})
		off = end + 2
	}
}

// dangling finds the first action of src that no }} closes before the
// next {{ or the end of the file: its line, 1-based column, its text up to
// the end of its line, and the line of the {{ it runs into (0 at the end).
func dangling(src string) (line, col int, text string, next int, ok bool) {
	for off := 0; ; {
		i := strings.Index(src[off:], "{{")
		if i < 0 {
			return 0, 0, "", 0, false
		}
		start := off + i
		end, open := actionEndOrOpen(src, start+2)
		if end < 0 || open >= 0 {
			line = 1 + strings.Count(src[:start], "\n")
			col = start - strings.LastIndexByte(src[:start], '\n')
			text = src[start:]
			if j := strings.IndexByte(text, '\n'); j >= 0 {
				text = text[:j]
			}
			if open >= 0 {
				next = 1 + strings.Count(src[:open], "\n")
			}
			return line, col, text, next, true
		}
		off = end + 2
	}
}

// unclosed finds the innermost {{if}}, {{range}}, {{with}}, {{define}} or
// {{block}} of src that no {{end}} closes, for an "unexpected EOF" error,
// which text/template reports at the end of the file rather than where the
// author forgot the {{end}}. It returns the keyword and the action's line
// and column.
func unclosed(src string) (keyword string, line, col int, ok bool) {
	type open struct {
		word      string
		line, col int
	}
	var stack []open
	for off := 0; ; {
		i := strings.Index(src[off:], "{{")
		if i < 0 {
			break
		}
		start := off + i
		end := actionEnd(src, start+2)
		if end < 0 {
			break
		}
		body := strings.TrimSpace(strings.Trim(strings.TrimSpace(src[start+2:end]), "-"))
		word := body
		if j := strings.IndexAny(body, " \t\r\n("); j >= 0 {
			word = body[:j]
		}
		switch word {
		case "if", "range", "with", "define", "block":
			l := 1 + strings.Count(src[:start], "\n")
			c := start - strings.LastIndexByte(src[:start], '\n')
			stack = append(stack, open{word, l, c})
		case "end":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		off = end + 2
	}
	if len(stack) == 0 {
		return "", 0, 0, false
	}
	top := stack[len(stack)-1]
	return top.word, top.line, top.col, true
}

// actionEnd finds the "}}" that ends the action whose body starts at i,
// stepping over quoted strings, raw strings and comments; -1 if none.
func actionEnd(src string, i int) int {
	end, _ := actionEndOrOpen(src, i)
	return end
}

// actionEndOrOpen is actionEnd, and where a "{{" stands inside the action
// before its "}}", which no action may hold outside a string or comment:
// the action was left open. end is -1 when no "}}" ends the action, open
// -1 when no "{{" comes first.
func actionEndOrOpen(src string, i int) (end, open int) {
	open = -1
	for i < len(src)-1 {
		switch {
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return -1, open
			}
			i += j + 4
		case src[i] == '"' || src[i] == '\'':
			// A quoted string or a character ends on its line.
			q := src[i]
			i++
			for i < len(src) && src[i] != q && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case src[i] == '`':
			j := strings.IndexByte(src[i+1:], '`')
			if j < 0 {
				return -1, open
			}
			i += j + 2
		case strings.HasPrefix(src[i:], "}}"):
			return i, open
		case strings.HasPrefix(src[i:], "{{"):
			if open < 0 {
				open = i
			}
			i += 2
		default:
			i++
		}
	}
	return -1, open
}

// engineCause is the error of a limit of the engine's (too deep calls),
// met in an action the engine added to the trees it runs, at the
// template's position; nil for any other error. A range over a value it
// cannot go over is reported as the author wrote the range, at and reason
// rewritten, since the range's last command is the engine's.
func engineCause(err error, pos string, at, reason *string) *Error {
	if rerr := (*funcs.RangeError)(nil); errors.As(err, &rerr) {
		*at, *reason = rerr.Pipe, rerr.Error()
	}
	var limit *funcs.LimitError
	if errors.As(err, &limit) {
		e := &Error{Kind: KindTemplate, Position: pos, Reason: limit.Msg, Err: err}
		return e.Hint("%s", limit.Hint)
	}
	return nil
}
