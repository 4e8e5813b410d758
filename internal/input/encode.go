package input

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON encodes v with objects in the order keys gives (input order for
// a document's objects) and without HTML escaping, so that a payload reads as
// the caller sent it. pretty indents by two spaces.
func AppendJSON(b []byte, v any, keys *KeyOrder, pretty bool) []byte {
	return appendJSON(b, v, keys, pretty, 0)
}

func appendJSON(b []byte, v any, keys *KeyOrder, pretty bool, depth int) []byte {
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
		for i, k := range keys.Keys(c) {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = appendJSONString(b, k)
			b = append(b, ':')
			if pretty {
				b = append(b, ' ')
			}
			b = appendJSON(b, c[k], keys, pretty, depth+1)
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
			b = appendJSON(b, e, keys, pretty, depth+1)
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

// Short is v as compact JSON, cut to about 80 characters, for error
// messages. It writes only what it keeps, and a little more: a value of
// gigabytes costs it no more than one of a line.
func Short(v any, keys *KeyOrder) string {
	const most = 80
	s := string(appendShort(nil, v, keys, 4*most))
	if utf8.RuneCountInString(s) > most {
		n := 0
		for i := range s {
			if n == most-3 {
				return s[:i] + "..."
			}
			n++
		}
	}
	return s
}

// appendShort appends v as compact JSON, as AppendJSON does, until b holds
// more than limit bytes; strings are cut at limit bytes.
func appendShort(b []byte, v any, keys *KeyOrder, limit int) []byte {
	cut := func(s string) string {
		if len(s) <= limit {
			return s
		}
		n := limit
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n]
	}
	switch c := v.(type) {
	case string:
		return appendJSONString(b, cut(c))
	case map[string]any:
		b = append(b, '{')
		for i, k := range keys.Keys(c) {
			if len(b) > limit {
				return b
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, cut(k)), ':')
			b = appendShort(b, c[k], keys, limit)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range c {
			if len(b) > limit {
				return b
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendShort(b, e, keys, limit)
		}
		return append(b, ']')
	}
	return appendJSON(b, v, keys, false, 0)
}
