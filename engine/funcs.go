package engine

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
)

// nondeterministic lists the sprig functions a template may not call: they read
// the clock, the machine's time zone, randomness, the environment or the
// network, so the same input would not give the same bytes everywhere.
var nondeterministic = []string{
	"now", "ago", "date", "dateInZone", "date_in_zone", "htmlDate", "htmlDateInZone",
	"durationRound", "toDate", "mustToDate", "unixEpoch", "dateModify", "date_modify",
	"mustDateModify", "must_date_modify",
	"randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt",
	"uuidv4", "shuffle", "env", "expandenv", "getHostByName",
	"genPrivateKey", "buildCustomCert", "genCA", "genCAWithKey", "genSelfSignedCert",
	"genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
	"encryptAES", "bcrypt", "htpasswd",
}

// funcMap is sprig's text functions without the nondeterministic ones, with
// rune-safe replacements for its byte-cutting ones, plus the engine's own.
// self is filled in after parsing so that include can call the variant's
// templates by a computed name.
func funcMap(self **template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	for _, name := range nondeterministic {
		delete(f, name)
	}
	own := template.FuncMap{
		// text
		"truncate":         truncateRunes2,
		"trunc":            truncRunes,
		"substr":           substrRunes,
		"stripFrontmatter": stripFrontmatter,
		"fence":            fence,
		"plural":           plural,
		"mdCell":           mdCell,
		// lists
		"take":       take,
		"takeLast":   takeLast,
		"sortBy":     func(field string, list any) ([]any, error) { return sortBy(field, list, false) },
		"sortByDesc": func(field string, list any) ([]any, error) { return sortBy(field, list, true) },
		"where":      where,
		"whereIn":    whereIn,
		"whereNot":   whereNot,
		"find":       find,
		// objects, in input order
		"entries": entries,
		"keys":    orderedKeysOf,
		"values":  orderedValuesOf,
		"json":    func(v any) string { return string(appendJSON(nil, v, false)) },
		"prettyJson": func(v any) string {
			return string(appendJSON(nil, v, true))
		},
		// time, always relative to a time taken from the input
		"ago":     ago,
		"until":   until,
		"age":     age,
		"isoTime": isoTime,
		"date":    formatDate,
		// templates
		"include": func(name string, data any) (string, error) {
			var b bytes.Buffer
			if (*self).Lookup(name) == nil {
				return "", fmt.Errorf("no template %q; the templates are: %s", name, templateNames(*self))
			}
			if tooDeep() {
				return "", fmt.Errorf("include %q: templates include each other too deeply (does one include itself?)", name)
			}
			err := (*self).ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
	}
	for k, v := range own {
		f[k] = v
	}
	return f
}

// maxIncludeFrames bounds the Go stack an include may start from. Every
// include starts a new execution, so text/template's own depth limit never
// sees a template that includes itself; without a bound it would exhaust
// the stack and end the process. A few hundred nested includes fit.
const maxIncludeFrames = 16384

var framePool = sync.Pool{New: func() any { return make([]uintptr, maxIncludeFrames) }}

func tooDeep() bool {
	pcs := framePool.Get().([]uintptr)
	n := runtime.Callers(0, pcs)
	framePool.Put(pcs)
	return n >= maxIncludeFrames
}

func templateNames(t *template.Template) string {
	var names []string
	for _, x := range t.Templates() {
		if x.Tree != nil && strings.HasSuffix(x.Name(), ".tmpl") {
			names = append(names, x.Name())
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// truncateRunes keeps the first n characters (code points) of s; a UTF-8
// sequence is never split.
func truncateRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// truncateRunes2 is truncate's template form: {{ truncate 2000 .text }}.
func truncateRunes2(n int, s string) string { return truncateRunes(s, n) }

// truncRunes is sprig's trunc counted in characters: a negative n keeps the end.
func truncRunes(n int, s string) string {
	if n >= 0 {
		return truncateRunes(s, n)
	}
	count := utf8.RuneCountInString(s)
	if count+n <= 0 {
		return s
	}
	skip := count + n
	for pos := range s {
		if skip == 0 {
			return s[pos:]
		}
		skip--
	}
	return ""
}

// substrRunes is sprig's substr counted in characters.
func substrRunes(start, end int, s string) string {
	r := []rune(s)
	if start < 0 {
		return string(r[:min(max(end, 0), len(r))])
	}
	if end < 0 || end > len(r) {
		return string(r[min(start, len(r)):])
	}
	if start > end {
		return ""
	}
	return string(r[start:end])
}

// stripFrontmatter removes a leading YAML frontmatter block (--- ... ---), as a
// SKILL.md file has, and the line breaks right after it.
func stripFrontmatter(s string) string {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "---\r\n"); !ok {
			return s
		}
	}
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, "\r \t") == "---" {
			if nl < 0 {
				return ""
			}
			return strings.TrimLeft(rest[off+nl+1:], "\r\n")
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return s // no closing fence: not frontmatter
}

// fence returns a backtick fence longer than any run of backticks in s, so
// that s can be shown as a code block without ending it early.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// mdCell makes text safe for one cell of a markdown table: pipes are escaped
// and line breaks become spaces.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

func plural(n any, one, many string) (string, error) {
	i, err := toInt(n)
	if err != nil {
		return "", err
	}
	if i == 1 {
		return one, nil
	}
	return many, nil
}

func toInt(v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	case float64:
		return int64(n), nil
	case string:
		return strconv.ParseInt(n, 10, 64)
	}
	rv := reflect.ValueOf(v)
	if rv.CanInt() {
		return rv.Int(), nil
	}
	return 0, fmt.Errorf("expected a number, got %s", typeName(v))
}

func toList(v any) ([]any, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return l, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a list, got %s", typeName(v))
}

// take returns the first n elements of list.
func take(n int, list any) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	return l[:min(max(n, 0), len(l))], nil
}

// takeLast returns the last n elements of list, in their order.
func takeLast(n int, list any) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	return l[len(l)-min(max(n, 0), len(l)):], nil
}

func field(v any, name string) any {
	if m, ok := v.(map[string]any); ok {
		return m[name]
	}
	return nil
}

// sortBy sorts a list of objects by one field, stably: equal keys keep their
// input order. Numbers sort numerically; when every value present is an ISO
// 8601 time the values sort as times, so that time zones and fractions of a
// second count ("10:00:00.5Z" after "10:00:00Z"); everything else sorts as
// text. Missing values sort last, and so first under sortByDesc, which
// reverses the whole order.
func sortBy(name string, list any, desc bool) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(l))
	for i, e := range l {
		keys[i] = field(e, name)
	}
	if times, ok := timeKeys(keys); ok {
		keys = times
	}
	order := make([]int, len(l))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		c := compareValues(keys[a], keys[b])
		if desc {
			return -c
		}
		return c
	})
	out := make([]any, len(l))
	for i, j := range order {
		out[i] = l[j]
	}
	return out, nil
}

// timeKeys parses sort keys as times when every key present is an ISO 8601
// time string; a single other value keeps them all as they are, so that a
// list never mixes two orders.
func timeKeys(keys []any) ([]any, bool) {
	out := make([]any, len(keys))
	found := false
	for i, k := range keys {
		if k == nil {
			continue
		}
		s, ok := k.(string)
		if !ok {
			return nil, false
		}
		t, err := parseTime(s)
		if err != nil {
			return nil, false
		}
		out[i], found = t, true
	}
	return out, found
}

func compareValues(a, b any) int {
	fa, aNum := number64(a)
	fb, bNum := number64(b)
	switch {
	case aNum && bNum:
		if fa < fb {
			return -1
		} else if fa > fb {
			return 1
		}
		return 0
	case a == nil && b != nil:
		return 1 // missing values sort last
	case b == nil && a != nil:
		return -1
	}
	if ta, ok := a.(time.Time); ok {
		if tb, ok := b.(time.Time); ok {
			return ta.Compare(tb)
		}
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func number64(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func sameValue(a, b any) bool {
	if fa, ok := number64(a); ok {
		fb, ok := number64(b)
		return ok && fa == fb
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && typeName(a) == typeName(b)
}

// where keeps the objects whose field equals value.
func where(name string, value any, list any) ([]any, error) {
	return filter(list, func(e any) bool { return sameValue(field(e, name), value) })
}

// whereNot keeps the objects whose field differs from value.
func whereNot(name string, value any, list any) ([]any, error) {
	return filter(list, func(e any) bool { return !sameValue(field(e, name), value) })
}

// whereIn keeps the objects whose field equals one of values.
func whereIn(name string, values any, list any) ([]any, error) {
	vs, err := toList(values)
	if err != nil {
		return nil, err
	}
	return filter(list, func(e any) bool {
		return slices.ContainsFunc(vs, func(v any) bool { return sameValue(field(e, name), v) })
	})
}

// find returns the first object whose field equals value, or nil.
func find(name string, value any, list any) (any, error) {
	l, err := where(name, value, list)
	if err != nil || len(l) == 0 {
		return nil, err
	}
	return l[0], nil
}

func filter(list any, keep func(any) bool) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(l))
	for _, e := range l {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

func asObject(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object, got %s", typeName(v))
	}
	return m, nil
}

// entries lists an object's {key, value} pairs in input order, as
// Object.entries does in JavaScript.
func entries(v any) ([]any, error) {
	return eachKey(v, func(m map[string]any, k string) any { return map[string]any{"key": k, "value": m[k]} })
}

func orderedKeysOf(v any) ([]any, error) {
	return eachKey(v, func(_ map[string]any, k string) any { return k })
}

func orderedValuesOf(v any) ([]any, error) {
	return eachKey(v, func(m map[string]any, k string) any { return m[k] })
}

// eachKey maps an object's keys, in input order, to a list.
func eachKey(v any, fn func(m map[string]any, key string) any) ([]any, error) {
	m, err := asObject(v)
	if err != nil {
		return nil, err
	}
	keys := orderedKeys(m)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = fn(m, k)
	}
	return out, nil
}

// appendJSON encodes v with objects in input order and without HTML escaping,
// so that a payload reads as the caller sent it.
func appendJSON(b []byte, v any, pretty bool) []byte {
	return appendJSONIndent(b, v, pretty, 0)
}

func appendJSONIndent(b []byte, v any, pretty bool, depth int) []byte {
	nl := func(b []byte, d int) []byte {
		if !pretty {
			return b
		}
		b = append(b, '\n')
		for range d {
			b = append(b, "  "...)
		}
		return b
	}
	switch c := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, c)
	case string:
		return appendJSONString(b, c)
	case int64:
		return strconv.AppendInt(b, c, 10)
	case int:
		return strconv.AppendInt(b, int64(c), 10)
	case float64:
		if math.IsInf(c, 0) || math.IsNaN(c) {
			return append(b, "null"...) // JSON has no such numbers
		}
		return strconv.AppendFloat(b, c, 'g', -1, 64)
	case map[string]any:
		if len(c) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, k := range orderedKeys(c) {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = appendJSONString(b, k)
			b = append(b, ':')
			if pretty {
				b = append(b, ' ')
			}
			b = appendJSONIndent(b, c[k], pretty, depth+1)
		}
		b = nl(b, depth)
		return append(b, '}')
	case []any:
		if len(c) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range c {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = appendJSONIndent(b, e, pretty, depth+1)
		}
		b = nl(b, depth)
		return append(b, ']')
	}
	return appendJSONString(b, fmt.Sprint(v))
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	run := 0 // start of the bytes not yet copied: most text needs no escaping
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if r != 0x2028 && r != 0x2029 && r != utf8.RuneError {
				i += size
				continue
			}
		}
		b = append(b, s[run:i]...)
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == utf8.RuneError:
			b = append(b, `\ufffd`...)
		default:
			b = fmt.Appendf(b, `\u%04x`, r)
		}
		i += size
		run = i
	}
	b = append(b, s[run:]...)
	return append(b, '"')
}

func itoa(i int) string { return strconv.Itoa(i) }
