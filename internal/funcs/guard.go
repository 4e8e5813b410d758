package funcs

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"text/template"
	"unicode/utf8"
)

// guard wraps every function of f that builds a text or a list, so that a
// template cannot build a value past the limits however it loops: each call
// first checks the run (its context ends a render past its deadline, even
// one that only builds values and writes nothing), and a text longer than
// Limits.OutputBytes or a list longer than Limits.ListItems is refused. A
// function whose result may be far larger than its arguments (repeat,
// replace, indent, join, printf "%*d", toJson of a list that holds itself
// many times) is refused before it builds anything; the others are checked
// on what they return, which is at most a few times their arguments. A
// list or object built of others is checked on its size written out, so
// that no value a template holds could print past the limit.
//
// A range over a list built before, with no function called inside, is
// no function's to guard: the engine checks the deadline at every
// iteration of a range in the trees a render executes (engine's bound,
// with Bounds). Functions that compare every item with many others (uniq,
// without, whereIn) look at the deadline as they compare; uniq and without
// hash texts and numbers, in linear time.
//
// text/template's own print, printf, println, html, js and urlquery are
// replaced by guarded ones of the same meaning.
func (env *Env) guard(f template.FuncMap) {
	builtins(f)
	guards := prechecks()
	for name, fn := range f {
		if pre, ok := env.precheck(guards[name], name, fn); ok {
			f[name] = pre
			continue
		}
		f[name] = env.postcheck(name, fn)
	}
}

// builtins puts text/template's own print, printf, println, html, js and
// urlquery in f, for guard to wrap.
func builtins(f template.FuncMap) {
	f["print"], f["println"], f["printf"] = fmt.Sprint, fmt.Sprintln, fmt.Sprintf
	f["html"], f["js"], f["urlquery"] = template.HTMLEscaper, template.JSEscaper, template.URLQueryEscaper
}

// precheck wraps the functions whose result can be out of all proportion
// to their arguments: each works out what it would build and refuses it
// over the limits before building it. The guard of each is in prechecks,
// by name (g, nil for a function that has none); a function whose type is
// not the one its guard expects is left to postcheck.
func (env *Env) precheck(g guardFn, name string, fn any) (any, bool) {
	if g == nil {
		return nil, false
	}
	return g(env, name, fn)
}

// guardFn wraps fn, the function name, with its guard; false when fn is
// not of the type the guard expects.
type guardFn func(env *Env, name string, fn any) (any, bool)

// prechecks is the guard of every function precheck wraps, by name.
func prechecks() map[string]guardFn {
	m := map[string]guardFn{
		"printf":                     guardPrintf,
		"toJson":                     guardValue(false),
		"toRawJson":                  guardValue(false),
		"json":                       guardValue(false),
		"toString":                   guardValue(false),
		"toPrettyJson":               guardValue(true),
		"prettyJson":                 guardValue(true),
		"mustToJson":                 guardMustJSON,
		"mustToPrettyJson":           guardMustJSON,
		"mustToRawJson":              guardMustJSON,
		"isoTime":                    guardMustJSON, // of the same type: sized as its argument written out
		"toStrings":                  guardStrings,
		"sortAlpha":                  guardStrings,
		"deepCopy":                   guardDeepCopy,
		"mustDeepCopy":               guardMustDeepCopy,
		"join":                       guardJoin,
		"indent":                     guardIndent,
		"nindent":                    guardIndent,
		"indentLines":                guardIndentLines,
		"wrapWith":                   guardWrapWith,
		"replace":                    guardReplace,
		"regexReplaceAll":            guardRegexReplace(false),
		"regexReplaceAllLiteral":     guardRegexReplace(true),
		"mustRegexReplaceAll":        guardMustRegexReplace(false),
		"mustRegexReplaceAllLiteral": guardMustRegexReplace(true),
		"splitList":                  guardSplitList,
		"split":                      guardSplit,
		"regexFindAll":               guardRegexList,
		"regexSplit":                 guardRegexList,
		"mustRegexFindAll":           guardMustRegexList,
		"mustRegexSplit":             guardMustRegexList,
		"uniq":                       guardUniq,
		"mustUniq":                   guardUniq,
		"without":                    guardWithout,
		"mustWithout":                guardWithout,
		"whereIn":                    guardWhereIn,
	}
	for _, name := range []string{"print", "println", "cat", "quote", "squote"} {
		m[name] = guardPrinted(1)
	}
	for _, name := range []string{"html", "js", "urlquery"} {
		m[name] = guardPrinted(6) // an escaped character is at most six bytes long
	}
	return m
}

// guardPrinted: a text of the arguments printed, scale bytes a byte.
func guardPrinted(scale int) guardFn {
	return func(env *Env, name string, fn any) (any, bool) {
		f, ok := fn.(func(...any) string)
		return func(args ...any) (string, error) {
			if err := env.values(name, scale, args...); err != nil {
				return "", err
			}
			return f(args...), nil
		}, ok
	}
}

func guardPrintf(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, ...any) string)
	return func(format string, args ...any) (string, error) {
		if err := env.values(name, 1, args...); err != nil {
			return "", err
		}
		if err := env.text(name, float64(len(format))+formatWidths(format, args)); err != nil {
			return "", err
		}
		return f(format, args...), nil
	}, ok
}

// guardValue: a value written out as JSON or text, indented or not.
func guardValue(indented bool) guardFn {
	return func(env *Env, name string, fn any) (any, bool) {
		f, ok := fn.(func(any) string)
		return func(v any) (string, error) {
			sized := v
			if indented {
				sized = pretty{v}
			}
			if err := env.values(name, 1, sized); err != nil {
				return "", err
			}
			return f(v), nil
		}, ok
	}
}

func guardMustJSON(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(any) (string, error))
	return func(v any) (string, error) {
		if err := env.values(name, 1, pretty{v}); err != nil {
			return "", err
		}
		return f(v)
	}, ok
}

// guardStrings: each item as fmt prints it.
func guardStrings(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(any) []string)
	return func(v any) ([]string, error) {
		if err := env.values(name, 1, v); err != nil {
			return nil, err
		}
		out := f(v)
		return out, env.items(name, float64(len(out)))
	}, ok
}

// guardDeepCopy: a copy holds a list as often as the original does.
func guardDeepCopy(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(any) any)
	return func(v any) (any, error) {
		if err := env.values(name, 1, v); err != nil {
			return nil, err
		}
		return f(v), nil
	}, ok
}

func guardMustDeepCopy(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(any) (any, error))
	return func(v any) (any, error) {
		if err := env.values(name, 1, v); err != nil {
			return nil, err
		}
		return f(v)
	}, ok
}

func guardJoin(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, any) string)
	return func(sep string, v any) (string, error) {
		if err := env.values(name, 1, v); err != nil {
			return "", err
		}
		if err := env.text(name, float64(len(sep))*float64(listLen(v))); err != nil {
			return "", err
		}
		return f(sep, v), nil
	}, ok
}

// guardIndent: the indent before every line.
func guardIndent(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(int, string) string)
	return func(n int, s string) (string, error) {
		lines := float64(strings.Count(s, "\n") + 1)
		if err := env.text(name, float64(len(s))+lines*float64(max(n, 0))); err != nil {
			return "", err
		}
		return f(n, s), nil
	}, ok
}

func guardIndentLines(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, string) string)
	return func(prefix, s string) (string, error) {
		lines := float64(strings.Count(s, "\n"))
		if err := env.text(name, float64(len(s))+lines*float64(len(prefix))); err != nil {
			return "", err
		}
		return f(prefix, s), nil
	}, ok
}

// guardWrapWith: a break every n characters.
func guardWrapWith(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(int, string, string) string)
	return func(n int, sep, s string) (string, error) {
		breaks := float64(utf8.RuneCountInString(s)/max(n, 1) + 1)
		if err := env.text(name, float64(len(s))+breaks*float64(len(sep))); err != nil {
			return "", err
		}
		return f(n, sep, s), nil
	}, ok
}

func guardReplace(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, string, string) string)
	return func(old, new, s string) (string, error) {
		if err := env.text(name, replacedSize(old, new, s)); err != nil {
			return "", err
		}
		return f(old, new, s), nil
	}, ok
}

func guardRegexReplace(literal bool) guardFn {
	return func(env *Env, name string, fn any) (any, bool) {
		f, ok := fn.(func(string, string, string) string)
		return func(pattern, s, repl string) (string, error) {
			if err := env.regexReplaced(name, pattern, s, repl, literal); err != nil {
				return "", err
			}
			out := f(pattern, s, repl)
			return out, env.charge(name, float64(len(out)))
		}, ok
	}
}

func guardMustRegexReplace(literal bool) guardFn {
	return func(env *Env, name string, fn any) (any, bool) {
		f, ok := fn.(func(string, string, string) (string, error))
		return func(pattern, s, repl string) (string, error) {
			if err := env.regexReplaced(name, pattern, s, repl, literal); err != nil {
				return "", err
			}
			out, err := f(pattern, s, repl)
			if err != nil {
				return "", err
			}
			return out, env.charge(name, float64(len(out)))
		}, ok
	}
}

func guardSplitList(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, string) []string)
	return func(sep, s string) ([]string, error) {
		if err := env.items(name, float64(splitCount(sep, s))); err != nil {
			return nil, err
		}
		return f(sep, s), nil
	}, ok
}

func guardSplit(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, string) map[string]string)
	return func(sep, s string) (map[string]string, error) {
		if err := env.items(name, float64(splitCount(sep, s))); err != nil {
			return nil, err
		}
		return f(sep, s), nil
	}, ok
}

// guardRegexList asks for one more item than a list may hold.
func guardRegexList(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, string, int) []string)
	return func(pattern, s string, n int) ([]string, error) {
		if err := env.check(); err != nil {
			return nil, err
		}
		out := f(pattern, s, env.cap(n))
		return out, env.items(name, float64(len(out)))
	}, ok
}

func guardMustRegexList(env *Env, name string, fn any) (any, bool) {
	f, ok := fn.(func(string, string, int) ([]string, error))
	return func(pattern, s string, n int) ([]string, error) {
		if err := env.check(); err != nil {
			return nil, err
		}
		out, err := f(pattern, s, env.cap(n))
		if err != nil {
			return nil, err
		}
		return out, env.items(name, float64(len(out)))
	}, ok
}

// postcheck wraps a function that builds a text or a list at most a few
// times the size of its arguments: the run is checked before the call and
// the result's size after it. Functions that build neither are left as
// they are.
func (env *Env) postcheck(name string, fn any) any {
	for _, wrap := range []func(string, any) (any, bool){env.postcheckText, env.postcheckList, env.postcheckMap} {
		if g, ok := wrap(name, fn); ok {
			return g
		}
	}
	return fn
}

// postcheckText wraps the functions that build a text: its length is
// checked against the output limit.
func (env *Env) postcheckText(name string, fn any) (any, bool) {
	switch fn := fn.(type) {
	case func(string) string:
		return func(s string) (string, error) {
			return env.checkedText(name, func() string { return fn(s) })
		}, true
	case func(int, string) string:
		return func(n int, s string) (string, error) {
			return env.checkedText(name, func() string { return fn(n, s) })
		}, true
	case func(string, string) string:
		return func(a, s string) (string, error) {
			return env.checkedText(name, func() string { return fn(a, s) })
		}, true
	case func(int, int, string) string:
		return func(a, b int, s string) (string, error) {
			return env.checkedText(name, func() string { return fn(a, b, s) })
		}, true
	case func(string, string, int) string:
		return func(a, b string, n int) (string, error) {
			return env.checkedText(name, func() string { return fn(a, b, n) })
		}, true
	case func(any) (string, error): // isoTime
		return func(v any) (string, error) {
			return env.checkedTextErr(name, func() (string, error) { return fn(v) })
		}, true
	case func(any, any) (string, error): // relativeTime, age
		return func(a, b any) (string, error) {
			return env.checkedTextErr(name, func() (string, error) { return fn(a, b) })
		}, true
	case func(string, any) (string, error): // formatDate: as long as its layout
		return func(s string, v any) (string, error) {
			return env.checkedTextErr(name, func() (string, error) { return fn(s, v) })
		}, true
	case func(string, string) (string, error): // decryptAES, mustRegexFind
		return func(a, s string) (string, error) {
			return env.checkedTextErr(name, func() (string, error) { return fn(a, s) })
		}, true
	case func(map[string]any) string: // urlJoin
		return func(m map[string]any) (string, error) {
			return env.checkedText(name, func() string { return fn(m) })
		}, true
	case func(string) any: // fromJson: what it decodes is about as long as its text
		return func(s string) (any, error) {
			if err := env.decoding(name, s); err != nil {
				return nil, err
			}
			return fn(s), nil
		}, true
	case func(string) (any, error): // mustFromJson
		return func(s string) (any, error) {
			if err := env.decoding(name, s); err != nil {
				return nil, err
			}
			return fn(s)
		}, true
	}
	return nil, false
}

// decoding counts what decoding s builds, about its length, without the
// output limit: a value decoded need not be printed.
func (env *Env) decoding(name, s string) error {
	if err := env.check(); err != nil {
		return err
	}
	return env.charge(name, float64(len(s)))
}

// checkedTextErr is checkedText for a function that may fail.
func (env *Env) checkedTextErr(name string, build func() (string, error)) (string, error) {
	var err error
	out, checkErr := env.checkedText(name, func() string {
		var s string
		s, err = build()
		return s
	})
	if err != nil {
		return "", err
	}
	return out, checkErr
}

// checkedText runs build between the checks of postcheckText: the run's
// before, the length of the text built after.
func (env *Env) checkedText(name string, build func() string) (string, error) {
	if err := env.check(); err != nil {
		return "", err
	}
	out := build()
	return out, env.text(name, float64(len(out)))
}

// postcheckList wraps the functions that build a list: its items, and what
// the lists it holds hold, are checked.
func (env *Env) postcheckList(name string, fn any) (any, bool) {
	switch fn := fn.(type) {
	case func(...any) []any: // list, tuple
		return func(args ...any) ([]any, error) {
			if err := env.check(); err != nil {
				return nil, err
			}
			out := fn(args...)
			return out, env.nested(name, out, args...)
		}, true
	case func(any, any) []any: // append, push, prepend
		return func(l, v any) ([]any, error) {
			if err := env.check(); err != nil {
				return nil, err
			}
			out := fn(l, v)
			if err := env.items(name, float64(len(out))); err != nil {
				return nil, err
			}
			return out, env.nested(name, out, v)
		}, true
	case func(any, any) ([]any, error): // mustAppend, mustPush, mustPrepend
		return func(l, v any) ([]any, error) {
			if err := env.check(); err != nil {
				return nil, err
			}
			out, err := fn(l, v)
			if err == nil {
				err = env.items(name, float64(len(out)))
			}
			if err != nil {
				return nil, err
			}
			return out, env.nested(name, out, v)
		}, true
	case func(...any) any: // concat, coalesce
		return func(args ...any) (any, error) {
			if err := env.check(); err != nil {
				return nil, err
			}
			out := fn(args...)
			if err := env.items(name, float64(listLen(out))); err != nil {
				return nil, err
			}
			return out, env.nested(name, out, args...)
		}, true
	}
	return nil, false
}

// postcheckMap wraps the functions that build an object, and the two that
// cost more than their result says (derivePassword, splitn).
func (env *Env) postcheckMap(name string, fn any) (any, bool) {
	switch fn := fn.(type) {
	case func(...any) map[string]any: // dict
		return func(args ...any) (map[string]any, error) {
			if err := env.check(); err != nil {
				return nil, err
			}
			out := fn(args...)
			return out, env.nested(name, out, args...)
		}, true
	case func(map[string]any, string, any) map[string]any: // set
		return func(m map[string]any, k string, v any) (map[string]any, error) {
			if err := env.check(); err != nil {
				return nil, err
			}
			out := fn(m, k, v)
			if err := env.items(name, float64(len(out))); err != nil {
				return nil, err
			}
			return out, env.nested(name, out, v)
		}, true
	case func(uint32, string, string, string, string) string: // derivePassword: scrypt, 32 MB a call
		return func(counter uint32, a, b, c, d string) (string, error) {
			if err := env.check(); err != nil {
				return "", err
			}
			return fn(counter, a, b, c, d), nil
		}, true
	case func(string, int, string) map[string]string: // splitn
		return func(sep string, n int, s string) (map[string]string, error) {
			count := splitCount(sep, s)
			if n >= 0 {
				count = min(count, n)
			}
			if err := env.items(name, float64(count)); err != nil {
				return nil, err
			}
			return fn(sep, n, s), nil
		}, true
	}
	return nil, false
}

// nested refuses a list or object that, built of other lists or objects,
// holds more than the output limit could ever print: {{ $l = list $l $l }}
// in a loop builds a list that holds itself 2ⁿ times at the cost of n
// calls, and an action that prints it ({{ $l }}) goes through
// text/template's own fmt, which no function guards. Built only of
// scalars, a value is its arguments' size and costs nothing to check.
func (env *Env) nested(fn string, out any, args ...any) error {
	limit := env.Limits.OutputBytes
	if limit <= 0 || !anyCollection(args) {
		return nil
	}
	if valueSize(out, limit, 0) < 0 {
		return fmt.Errorf("%s would build a value of more than %d bytes written out, the output limit; a list that holds itself doubles with every call (the limit is the engine's OutputBytes, render's --max-output)", fn, limit)
	}
	return nil
}

// anyCollection reports whether one of args is a list or an object.
func anyCollection(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case []any, map[string]any:
			return true
		}
		if k := reflect.ValueOf(a).Kind(); k == reflect.Slice || k == reflect.Map || k == reflect.Array {
			return true
		}
	}
	return false
}

// text refuses a text of n bytes over the output limit, which no value a
// template builds may pass: a longer one could never be written.
func (env *Env) text(fn string, n float64) error {
	if err := env.fits(fn, n); err != nil {
		return err
	}
	return env.charge(fn, n)
}

// fits is text without counting n against the run: for a size known
// before the text is built only as a bound.
func (env *Env) fits(fn string, n float64) error {
	return env.within(fn, n, env.Limits.OutputBytes, "%s would build a text of %.0f bytes, over the output limit of %d bytes; no value a template builds may be longer than a prompt (the limit is the engine's OutputBytes, render's --max-output)")
}

// values refuses arguments that, printed, would write more than the output
// limit: scale times their size as valueSize counts it.
func (env *Env) values(fn string, scale int, args ...any) error {
	if err := env.check(); err != nil {
		return err
	}
	limit := env.Limits.OutputBytes
	if limit <= 0 {
		return nil
	}
	budget := limit / scale
	for _, a := range args {
		budget = valueSize(a, budget, 0)
		if budget < 0 {
			return fmt.Errorf("%s would build a text of more than %d bytes, the output limit; no value a template builds may be longer than a prompt (the limit is the engine's OutputBytes, render's --max-output)", fn, limit)
		}
	}
	return env.charge(fn, float64((limit/scale-budget)*scale))
}

// cap is n, the most items regexFindAll or regexSplit may return, bounded
// to one more than a list may hold, so that a longer result shows without
// being built.
func (env *Env) cap(n int) int {
	limit := env.Limits.ListItems
	if limit <= 0 || (n >= 0 && n <= limit) {
		return n
	}
	return limit + 1
}

// regexReplaced refuses a regexReplaceAll whose result would pass the
// output limit. The bound from the sizes alone settles most calls; when it
// does not, the matches are counted (groups lie within their match, so a
// replacement expands to at most its own length plus a match's per $ in
// it).
func (env *Env) regexReplaced(fn, pattern, s, repl string, literal bool) error {
	if err := env.check(); err != nil {
		return err
	}
	limit := env.Limits.OutputBytes
	refs := 0
	if !literal {
		refs = strings.Count(repl, "$")
	}
	n, r := float64(len(s)), float64(len(repl))
	if limit <= 0 || n+(n+1)*(r+float64(refs)*n) <= float64(limit) {
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil // the function itself reports a bad pattern
	}
	size := n
	re.ReplaceAllStringFunc(s, func(m string) string {
		size += r + float64(refs*len(m)) - float64(len(m))
		return ""
	})
	return env.fits(fn, size) // counted once built (charge)
}

// replacedSize is the length of strings.Replace(s, old, new, -1).
func replacedSize(old, new, s string) float64 {
	count := utf8.RuneCountInString(s) + 1 // an empty old matches between characters
	if old != "" {
		count = strings.Count(s, old)
	}
	return float64(len(s)) + float64(count)*(float64(len(new))-float64(len(old)))
}

// splitCount is how many parts strings.Split(s, sep) gives.
func splitCount(sep, s string) int {
	if sep == "" {
		return utf8.RuneCountInString(s)
	}
	return strings.Count(s, sep) + 1
}

// listLen is the length of a list, or 0 for any other value.
func listLen(v any) int {
	switch v := v.(type) {
	case []any:
		return len(v)
	case []string:
		return len(v)
	case nil:
		return 0
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		return rv.Len()
	}
	return 0
}

// formatWidths is how many bytes the widths and precisions of a printf
// format may pad to: "%*d" and "%999999999d" pad without an argument as
// long.
func formatWidths(format string, args []any) float64 {
	total := 0.0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0; i++ {
		}
		for part := 0; part < 2 && i < len(format); part++ { // width, then precision
			if part == 1 {
				if format[i] != '.' {
					break
				}
				i++
			}
			if i < len(format) && format[i] == '[' { // an argument index: %[2]*d
				if end := strings.IndexByte(format[i:], ']'); end > 0 {
					i += end + 1
				}
			}
			if i < len(format) && format[i] == '*' {
				total += largestInt(args)
				i++
				continue
			}
			n := 0.0
			for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
				n = n*10 + float64(format[i]-'0')
			}
			total += n
		}
	}
	return total
}

// largestInt is the largest size of the integers among args, the most a
// "*" of a format may pad to, whichever argument it takes.
func largestInt(args []any) float64 {
	most := 0.0
	for _, a := range args {
		rv := reflect.ValueOf(a)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			most = max(most, math.Abs(float64(rv.Int())))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			most = max(most, float64(rv.Uint()))
		}
	}
	return most
}

// pretty marks a value to be sized as it is written with indentation.
type pretty struct{ v any }

// valueSize takes from budget about what v costs written out as text (its
// strings' bytes, a few bytes for each other value and separator, under
// pretty the indentation too) and returns what is left, or a negative
// number as soon as the budget is spent: a list that holds the same list
// twice, nested sixty deep, is refused after budget steps, not after 2⁶⁰.
func valueSize(v any, budget, indent int) int {
	const small = 8 // a number, a separator, a key's quotes
	if budget < 0 {
		return budget
	}
	switch v := v.(type) {
	case nil, bool, int, int64, float64:
		return budget - small - indent
	case string:
		return budget - len(v) - small - indent
	case pretty:
		return valueSize(v.v, budget, 2)
	case []any:
		budget -= small + indent
		for _, x := range v {
			if budget = valueSize(x, budget, nested(indent)); budget < 0 {
				return budget
			}
		}
		return budget
	case map[string]any:
		budget -= small + indent
		for k, x := range v {
			if budget = valueSize(x, budget-len(k)-small, nested(indent)); budget < 0 {
				return budget
			}
		}
		return budget
	case []string:
		for _, x := range v {
			if budget -= len(x) + small + indent; budget < 0 {
				return budget
			}
		}
		return budget
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		budget -= small + indent
		for i := 0; i < rv.Len() && budget >= 0; i++ {
			budget = valueSize(rv.Index(i).Interface(), budget, nested(indent))
		}
		return budget
	case reflect.Map:
		budget -= small + indent
		for it := rv.MapRange(); it.Next() && budget >= 0; {
			budget = valueSize(it.Value().Interface(), budget-small, nested(indent))
		}
		return budget
	case reflect.String:
		return budget - rv.Len() - small - indent
	}
	return budget - 4*small // a struct or pointer fmt prints: a few fields
}

// nested is the indentation one level deeper; 0 stays 0 (compact).
func nested(indent int) int {
	if indent == 0 {
		return 0
	}
	return indent + 2
}
