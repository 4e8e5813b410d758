package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/internal/pointer"
)

// Errors of types at render time, said as lint says them before any input:
// in the schema's words (integer, string, list), with the fix. text/template
// says them in Go's: "incompatible types for comparison: int64 and string",
// "range can't iterate over checkout-api", "index out of range: 5".
var (
	badCompare = regexp.MustCompile(`^(\w+): incompatible types for comparison(?:: (\S+) and (\S+))?`)
	badRange   = regexp.MustCompile(`^range can't iterate over (.*)$`)
	badIndex   = regexp.MustCompile(`^index: index out of range: (-?\d+)`)
	notIndexed = regexp.MustCompile(`^index: can't index item of type (\S+)`)
)

// goWords says a Go type of the input as its schema does: int64 is an
// integer, []interface {} a list.
func goWords(t string) string {
	return kindWords(t, map[string]string{"string": "a string", "bool": "a boolean",
		"int": "an integer", "uint": "an integer", "float": "a number", "list": "a list", "map": "an object"})
}

// explainTypes rewrites an error of types, reason as text/template gives it
// at the action at (its text) of file:line:col0; data, when not nil, is the
// input, for the length of a list indexed past its end. It reports whether
// it did.
func (v *Variant) explainTypes(e *Error, reason, file string, line, col0 int, at string, data map[string]any) bool {
	switch {
	case badCompare.MatchString(reason):
		m := badCompare.FindStringSubmatch(reason)
		what := "values of two types"
		if m[2] != "" {
			what = goWords(m[2]) + " with " + goWords(m[3])
		}
		e.Reason = fmt.Sprintf("%s compares %s, which never compare: text/template stops the render", orText(at, m[1]), what)
		e.Hint("compare values of one type: a number without quotes (3) for an integer or a number, a text in quotes (\"3\") for a string; the schema (%s) says what each field is", v.schemaFile())
		return true
	case badRange.MatchString(reason):
		shown := badRange.FindStringSubmatch(reason)[1]
		words := ""
		if site := v.findFieldSite(file, line, col0, at); site != nil {
			if sv := siteFields(site.from, site.names, v); sv.ok {
				words = sv.node.Words()
			}
		}
		kind := "not a list or an object"
		if words != "" {
			kind = "a " + words
		} else if _, err := strconv.ParseFloat(shown, 64); err == nil {
			kind = "a number"
		} else if shown == "true" || shown == "false" {
			kind = "a boolean"
		} else {
			kind = "a string"
		}
		e.Reason = fmt.Sprintf("range %s: %s is %s (here %q), and range goes over the items of a list or the values of an object, not text", at, at, kind, shown)
		e.Hint("print it with {{ %s }}, or make it a list in %s (\"type\": \"array\")", at, v.schemaFile())
		return true
	case badIndex.MatchString(reason):
		n, _ := strconv.Atoi(badIndex.FindStringSubmatch(reason)[1])
		list := indexedList(at)
		if list == "" {
			list = "the list"
		}
		e.Reason = fmt.Sprintf("%s: index %d is past the end of %s", orText(at, "index"), n, list)
		if length, ok := v.listLength(file, line, col0, at, data); ok {
			e.Reason += fmt.Sprintf(", which has %d item(s) in this input", length)
			if length > 0 {
				e.Reason += fmt.Sprintf(" (indexes 0 to %d)", length-1)
			}
		}
		e.Hint("guard it: {{ if gt (len %s) %d }}{{ index %s %d }}{{ end }}; or go over the items there are with {{ range %s }}", list, n, list, n, list)
		return true
	case notIndexed.MatchString(reason):
		t := notIndexed.FindStringSubmatch(reason)[1]
		e.Reason = fmt.Sprintf("%s: %s is %s, which has no items to index", orText(at, "index"), orText(indexedList(at), "the value"), goWords(t))
		e.Hint("index reads an item of a list or a field of an object: print the value as it is, or index the list or object that holds it")
		return true
	}
	return false
}

// orText is at, or else def.
func orText(at, def string) string {
	if at != "" {
		return at
	}
	return def
}

// indexedList is the list an index action reads, as it is written: .items
// of "index .items 5", or "".
func indexedList(at string) string {
	f := strings.Fields(at)
	if len(f) >= 2 && f[0] == "index" && (strings.HasPrefix(f[1], ".") || strings.HasPrefix(f[1], "$")) {
		return f[1]
	}
	return ""
}

// listLength is the length of the list "index .items 5" read, when the
// list is a field of the input: read from the dot where the dot is the
// input (not inside with or range), or from $.
func (v *Variant) listLength(file string, line, col0 int, at string, data map[string]any) (int, bool) {
	list := indexedList(at)
	if data == nil || list == "" {
		return 0, false
	}
	path := ""
	switch {
	case strings.HasPrefix(list, "$."):
		path = list[1:]
	case strings.HasPrefix(list, "."):
		// The list's field starts after "index ", where text/template
		// places a field of one name; one of more names it places at the
		// second.
		names := strings.Split(list[1:], ".")
		col := col0 + len("index ")
		if len(names) > 1 {
			col += 1 + len(names[0])
		}
		site := v.findFieldSite(file, line, col, list)
		if site == nil || site.rebound != "" || !site.from.root {
			return 0, false
		}
		path = list
	default:
		return 0, false
	}
	got, ok := pointer.Lookup(data, strings.ReplaceAll(path, ".", "/"))
	if l, isList := got.([]any); ok && isList {
		return len(l), true
	}
	return 0, false
}

// explainFromLint says what lint says of the place a render failed on a
// missing key, when lint knows more than the render's site: inside a
// partial, whose dot is what its callers pass, lint knows the schema there
// (a name meant, "sevrity" for "severity") where the render does not.
// explainFromLintAt says what lint says of the place a render failed at,
// when lint finds an error there (a template that is not defined, a field
// read on a text): the same words, with the fix, rather than Go's.
func (v *Variant) explainFromLintAt(e *Error) bool {
	if v.schema == nil {
		return false // a template that does not parse, at load: lint needs the variant loaded
	}
	for _, f := range v.Lint() {
		if f.Position == e.Position && f.Severity == "error" {
			e.Reason = f.Message
			return true
		}
	}
	return false
}

func (v *Variant) explainFromLint(e *Error, key string) bool {
	if !strings.Contains(e.Position, "/_") && !strings.Contains(e.Position, "/partials/") {
		return false // only a partial's dot is past what the site finds
	}
	for _, f := range v.Lint() {
		if f.Position != e.Position || f.Severity != "error" || !strings.Contains(f.Message, strconv.Quote(key)) {
			continue
		}
		e.Reason = f.Message
		e.Hint("fix the name, or, if %q is a new field, add it to the schema (%s) where the message says", key, v.schemaFile())
		return true
	}
	return false
}
