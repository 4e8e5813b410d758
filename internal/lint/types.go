package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/phrase"
)

// Types before any input: each expression is checked against what the
// schema says its values are, in every branch, so that a comparison of an
// integer with a text, a range over a text, an index into a number or a
// printf verb that does not fit its argument is found where it is written,
// not when an example reaches it. Only what is sure is reported: a value
// whose type the schema does not say, or that may be of a type that works,
// is not.

// kind is what lint knows of an argument's type: the JSON types its value
// may have (nil: unknown), said in the schema's words, and the text the
// template writes for it.
type kind struct {
	types []string
	words string
	text  string
	// lit is the literal written (a string, a number), when it is one.
	lit parse.Node
}

// kindOf is what an argument a, whose value is v, may be.
func (w *walker) kindOf(a parse.Node, v value) kind {
	k := kind{text: nodeText(a)}
	if a == nil && !v.open {
		k.text = pathText(v.path)
	}
	switch a := a.(type) {
	case *parse.StringNode:
		k.types, k.words, k.lit = []string{"string"}, "string", a
		return k
	case *parse.NumberNode:
		k.lit = a
		if a.IsInt {
			k.types, k.words = []string{"integer", "number"}, "integer"
		} else if a.IsFloat {
			k.types, k.words = []string{"number"}, "number"
		}
		return k
	case *parse.BoolNode:
		k.types, k.words, k.lit = []string{"boolean"}, "boolean", a
		return k
	}
	if v.kind != "" {
		k.types, k.words = []string{v.kind}, v.kind
		if v.kind == "integer" {
			k.types = []string{"integer", "number"}
		}
		return k
	}
	if v.open {
		return k
	}
	k.types = v.node.Types()
	k.words = v.node.Words()
	return k
}

// nodeText is an argument as the template writes it.
func nodeText(a parse.Node) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// nonNull is a kind's types without null: a value that may be null is
// checked for what it is when it is not.
func (k kind) nonNull() []string {
	return slices.DeleteFunc(slices.Clone(k.types), func(t string) bool { return t == "null" })
}

// goKinds are the kinds of value text/template's comparisons see for a
// kind, null left out (eq of null with anything is false, not an error):
// none when one of its types is not a basic one (a list, an object), which
// lint leaves alone.
func (k kind) goKinds() []string {
	t := k.nonNull()
	if len(t) == 0 {
		return nil
	}
	var out []string
	for _, t := range t {
		switch t {
		case "string":
			out = append(out, "string")
		case "integer":
			out = append(out, "int")
		case "number":
			out = append(out, "int", "float") // a whole number decodes as an integer
		case "boolean":
			out = append(out, "bool")
		default:
			return nil
		}
	}
	return out
}

// article puts "a" or "an" before words.
func article(words string) string {
	if words == "" {
		return "a value"
	}
	if strings.ContainsRune("aeiou", rune(words[0])) {
		return "an " + words
	}
	return "a " + words
}

// checkCall checks a call of fn with its arguments (args, their values
// vals, and the value piped in last, when there is one) against their types.
func (w *walker) checkCall(id *parse.IdentifierNode, args []parse.Node, vals []value, piped *value) {
	kinds := make([]kind, 0, len(args)+1)
	for i, a := range args {
		kinds = append(kinds, w.kindOf(a, vals[i]))
	}
	if piped != nil {
		kinds = append(kinds, w.kindOf(nil, *piped))
	}
	call := id.Ident
	for _, a := range args {
		call += " " + nodeText(a)
	}
	switch id.Ident {
	case "eq", "ne", "lt", "le", "gt", "ge":
		w.checkCompare(id, call, kinds, vals, piped)
	case "add", "sub", "mul", "div", "mod", "add1", "sub1", "max", "min", "addf", "subf", "mulf", "divf", "maxf", "minf", "add1f", "sub1f", "floor", "ceil", "round":
		for _, k := range kinds {
			t := k.nonNull()
			if len(t) > 0 && len(t) == len(k.types) && !slices.Contains(t, "integer") && !slices.Contains(t, "number") && k.lit == nil {
				w.report(id, Error, "%s: %s is %s, and %s works on numbers: it reads text that is not a number as 0, and a list or an object fails the render; "+
					"give it a number (an integer field, or len %s for a list's length)%s",
					call, k.text, article(k.words), id.Ident, k.text, w.schemaAdvice())
				return
			}
		}
	case "len":
		if len(kinds) == 1 {
			t := kinds[0].nonNull()
			if len(t) > 0 && !slices.ContainsFunc(t, func(s string) bool { return s == "string" || s == "array" || s == "object" }) {
				w.report(id, Error, "%s: %s is %s, which has no length: len counts the items of a list, the fields of an object or the bytes of a text; print it as it is", call, kinds[0].text, article(kinds[0].words))
			}
		}
	case "index":
		w.checkIndex(id, call, args, kinds, vals)
	case "printf":
		w.checkPrintf(id, call, args, kinds)
	}
}

// checkCompare checks eq, ne, lt, le, gt and ge: operands of kinds that
// never compare (text/template stops the render: "incompatible types for
// comparison"), and a text compared with a field whose values the schema
// lists (an enum) that is not one of them, which never holds.
func (w *walker) checkCompare(id *parse.IdentifierNode, call string, kinds []kind, vals []value, piped *value) {
	if len(kinds) < 2 {
		return
	}
	first := kinds[0]
	if piped != nil {
		// {{ .x | eq 3 }}: the value piped is the last argument; Go compares
		// the first with each of the others.
		first = kinds[len(kinds)-1]
		kinds = append([]kind{first}, kinds[:len(kinds)-1]...)
	}
	for _, other := range kinds[1:] {
		a, b := first.goKinds(), other.goKinds()
		if len(a) == 0 || len(b) == 0 || slices.ContainsFunc(a, func(k string) bool { return slices.Contains(b, k) }) {
			continue
		}
		field, lit := first, other
		if first.lit != nil {
			field, lit = other, first
		}
		fix := fmt.Sprintf("compare %s with %s", field.text, article(field.words))
		if lit.lit != nil {
			if s, ok := lit.lit.(*parse.StringNode); ok && slices.Contains(field.types, "integer") {
				if _, err := strconv.ParseFloat(s.Text, 64); err == nil {
					fix = fmt.Sprintf("write the number without quotes: %s", strings.Replace(call, s.String(), s.Text, 1))
				}
			}
			if n, ok := lit.lit.(*parse.NumberNode); ok && slices.Contains(field.types, "string") {
				fix = fmt.Sprintf("write the text in quotes: %s", strings.Replace(call, n.Text, strconv.Quote(n.Text), 1))
			}
		}
		w.report(id, Error, "%s: %s is %s and %s is %s: they never compare (the render stops with \"incompatible types for comparison\"); %s",
			call, first.text, article(first.words), other.text, article(other.words), fix)
		return
	}
	if id.Ident == "eq" || id.Ident == "ne" {
		w.checkEnum(id, call, kinds, vals, piped)
	}
}

// checkEnum checks the texts eq or ne compares a field with against the
// values its enum lists: one that is not among them never compares equal.
func (w *walker) checkEnum(id *parse.IdentifierNode, call string, kinds []kind, vals []value, piped *value) {
	// The field compared, and the texts it is compared with.
	fieldAt := -1
	for i, k := range kinds {
		if k.lit == nil {
			if fieldAt >= 0 {
				return
			}
			fieldAt = i
		}
	}
	if fieldAt < 0 {
		return
	}
	var v value
	if piped != nil && fieldAt == 0 {
		v = *piped
	} else if piped != nil {
		v = vals[fieldAt-1]
	} else {
		v = vals[fieldAt]
	}
	if v.open {
		return
	}
	enum, ok := v.node.Enum()
	if !ok {
		return
	}
	var allowed []string
	for _, e := range enum {
		s, ok := e.(string)
		if !ok {
			return
		}
		allowed = append(allowed, s)
	}
	for i, k := range kinds {
		s, ok := k.lit.(*parse.StringNode)
		if i == fieldAt || !ok || slices.Contains(allowed, s.Text) {
			continue
		}
		never := "never holds"
		if id.Ident == "ne" {
			never = "always holds"
		}
		quoted := make([]string, len(allowed))
		for j, a := range allowed {
			quoted[j] = strconv.Quote(a)
		}
		fix := "compare with one of them"
		if near := phrase.Closest(s.Text, allowed); near != "" {
			fix = fmt.Sprintf("did you mean %q? write %s", near, strings.Replace(call, s.String(), strconv.Quote(near), 1))
		}
		w.report(id, Error, "%s: %s is not a value of %s, which is one of %s: the test %s; %s (or add %s to the enum%s)",
			call, s.String(), kinds[fieldAt].text, strings.Join(quoted, ", "), never, fix, s.String(), w.inSchema())
		return
	}
}

// checkIndex checks index X K...: X must be a list or an object, a list
// is indexed by a number, and a constant index must be below the list's
// maxItems.
func (w *walker) checkIndex(id *parse.IdentifierNode, call string, args []parse.Node, kinds []kind, vals []value) {
	if len(args) < 2 || len(kinds) < 2 {
		return
	}
	x := kinds[0]
	t := x.nonNull()
	if len(t) == 0 || len(t) < len(x.types) {
		return
	}
	if !slices.Contains(t, "array") && !slices.Contains(t, "object") {
		if slices.Equal(t, []string{"string"}) {
			w.report(id, Error, "%s: %s is a string: index of a text gives one byte of it, as a number, not a character; print %s as it is, or use substr or trunc to cut it", call, x.text, x.text)
			return
		}
		w.report(id, Error, "%s: %s is %s, which has no items to index (the render stops: \"can't index item\"); index reads an item of a list or a field of an object: print %s as it is", call, x.text, article(x.words), x.text)
		return
	}
	if slices.Equal(t, []string{"array"}) {
		if s, ok := args[1].(*parse.StringNode); ok {
			w.report(id, Error, "%s: %s is %s, indexed by position (0, 1, ...), not by a name like %s; write index %s 0 for its first item", call, x.text, article(x.words), s.String(), x.text)
			return
		}
		if n, ok := args[1].(*parse.NumberNode); ok && n.IsInt && !vals[0].open {
			if most := vals[0].node.MaxItems(); most >= 0 && n.Int64 >= int64(most) {
				w.report(id, Error, "%s: %s holds at most %d item(s) (maxItems %d%s), so index %d is always out of range (indexes start at 0: the last is %d); index a smaller position, or raise maxItems",
					call, x.text, most, most, w.inSchema(), n.Int64, most-1)
			}
		}
	}
}

// checkPrintf checks printf's verbs against the arguments they format:
// %d of a text, %s of a number, %t of anything but a boolean print
// "%!d(string=...)" into the prompt; a verb without its argument, or an
// argument without its verb, too.
func (w *walker) checkPrintf(id *parse.IdentifierNode, call string, args []parse.Node, kinds []kind) {
	if len(args) == 0 {
		return
	}
	format, ok := args[0].(*parse.StringNode)
	if !ok || strings.ContainsAny(format.Text, "*[") {
		return
	}
	rest := kinds[1:]
	i := 0
	for _, verb := range printfVerb.FindAllString(format.Text, -1) {
		if verb == "%%" {
			continue
		}
		if i >= len(rest) {
			w.report(id, Error, "%s: the format has more verbs than arguments: %s has none and prints %%!%c(MISSING); give printf one argument per verb", call, verb, verb[len(verb)-1])
			return
		}
		k := rest[i]
		i++
		t := k.nonNull()
		if len(t) == 0 || len(t) < len(k.types) {
			continue
		}
		c := verb[len(verb)-1]
		var fits []string
		var use string
		switch c {
		case 'd', 'b', 'o', 'O', 'c', 'U':
			fits, use = []string{"integer", "number"}, "an integer"
		case 'x', 'X':
			fits, use = []string{"integer", "number", "string"}, "an integer or a string"
		case 'e', 'E', 'f', 'F', 'g', 'G':
			fits, use = []string{"number"}, "a number"
		case 's', 'q':
			fits, use = []string{"string", "array", "object"}, "a string"
			if c == 'q' {
				fits = append(fits, "integer", "number")
			}
		case 't':
			fits, use = []string{"boolean"}, "a boolean"
		default:
			continue
		}
		if slices.ContainsFunc(t, func(s string) bool { return slices.Contains(fits, s) }) {
			continue
		}
		better := "%v"
		switch {
		case slices.Equal(t, []string{"string"}):
			better = "%s"
		case slices.Equal(t, []string{"integer"}):
			better = "%d"
		case slices.Equal(t, []string{"boolean"}):
			better = "%t"
		}
		w.report(id, Error, "%s: %s formats %s, and %s is %s: the prompt would read %%!%c(...); write %s for it",
			call, verb, use, k.text, article(k.words), c, better)
		return
	}
	if i < len(rest) {
		w.report(id, Error, "%s: %d argument(s) and %d verb(s): the prompt would read %%!(EXTRA ...); add a verb for each argument, or drop the extra ones", call, len(rest), i)
	}
}

// inSchema names the schema file, for a fix made there.
func (w *walker) inSchema() string {
	if w.t.SchemaFile == "" {
		return ""
	}
	return " in " + w.t.SchemaFile
}

// schemaAdvice is a sentence's end that points at the schema file.
func (w *walker) schemaAdvice() string {
	if w.t.SchemaFile == "" {
		return ""
	}
	return "; " + w.t.SchemaFile + " says what each field is"
}

// checkRange checks what a range goes over: a text, a boolean or a
// fractional number stops the render ("range can't iterate over").
func (w *walker) checkRange(n *parse.RangeNode, v value) {
	if v.open || n.Pipe == nil || len(n.Pipe.Cmds) == 0 {
		return
	}
	types := v.node.Types()
	k := kind{types: types, words: v.node.Words()}
	t := k.nonNull()
	if len(t) == 0 || slices.ContainsFunc(t, func(s string) bool { return s != "string" && s != "boolean" }) {
		return
	}
	last := n.Pipe.Cmds[len(n.Pipe.Cmds)-1]
	at := parse.Node(n)
	if len(last.Args) > 0 {
		at = last.Args[0]
	}
	text := pathText(v.path)
	// The fix is written as the template writes the value: inside a with
	// or a range, .items[].name is .name there.
	written := last.String()
	w.report(at, Error, "range %s: %s is %s, and range goes over the items of a list or the values of an object, not %s (the render stops: \"range can't iterate over\"); "+
		"print it with {{ %s }}, or make it a list in the schema (\"type\": \"array\")%s",
		text, text, article(k.words), article(k.words), written, w.inSchema())
}
