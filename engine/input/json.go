package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/engine/pointer"
	"github.com/promptsmith/promptsmith/engine/problem"
)

func (d *Document) decodeJSON(data []byte, start int) (any, error) {
	p := &jsonParser{data: data, pos: start, doc: d, maxDepth: d.maxDepth}
	if p.maxDepth <= 0 {
		p.maxDepth = maxDepth
	}
	v, err := p.value(0)
	if err == nil {
		p.skipSpace()
		if p.pos < len(data) {
			err = &jsonSyntaxError{msg: "unexpected data after the top-level value", off: p.pos, cause: ErrTrailingData}
		}
	}
	if err != nil {
		line, col := lineCol(data, p.pos)
		pos := fmt.Sprintf("%s:%d:%d", d.Name, line, col)
		var ie *problem.Error
		if errors.As(err, &ie) {
			ie.Position = pos
			return nil, ie
		}
		return nil, (&problem.Error{Kind: problem.KindInput, Position: pos, Field: p.pointer(), Reason: "invalid JSON: " + err.Error(), Err: err}).
			Hint("fix the JSON syntax at that position (a missing comma, quote or brace is the usual cause)")
	}
	return v, nil
}

func number(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is out of range: write a smaller number", s)
	}
	return finite(f)
}

// jsonParser decodes JSON into the engine's value tree in one pass, recording
// each object's key order. encoding/json can either keep order (Decoder.Token,
// an allocation per token) or be fast (Unmarshal into maps, order lost);
// renders sit on an agent's hot path, so this does both.
type jsonParser struct {
	data []byte
	pos  int
	doc  *Document // nil when only positions are wanted
	// maxDepth bounds nesting: values deeper are refused.
	maxDepth int
	path     []string // the keys and indexes down to the current value, for errors
	// index, when set, receives the offset of every value's key or start:
	// error positions for JSON input.
	index map[string]int
}

// pointer is the JSON pointer of the current value, built only for errors.
func (p *jsonParser) pointer() string {
	return pointer.Join(p.path)
}

type jsonSyntaxError struct {
	msg   string
	off   int
	cause error
}

func (e *jsonSyntaxError) Error() string { return e.msg }
func (e *jsonSyntaxError) Unwrap() error { return e.cause }

// ErrTrailingData is wrapped by the error for JSON that holds more after
// its value: a second value, or anything else.
var ErrTrailingData = errors.New("data after the JSON value")

func (p *jsonParser) fail(format string, args ...any) error {
	return &jsonSyntaxError{msg: fmt.Sprintf(format, args...), off: p.pos}
}

func (p *jsonParser) record(m map[string]any, keys []string) {
	if p.doc != nil {
		p.doc.Record(m, keys)
	}
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > p.maxDepth {
		return nil, tooDeep(p.pointer(), p.maxDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.fail("invalid character %q looking for a value", c)
	}
}

func (p *jsonParser) object(depth int) (any, error) {
	p.pos++ // {
	m := map[string]any{}
	var keys []string
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.record(m, keys)
		return m, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a quoted key")
		}
		keyAt := p.pos
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.path = append(p.path, k)
		if p.index != nil {
			p.index[p.pointer()] = keyAt
		}
		if _, dup := m[k]; dup {
			p.pos = keyAt
			return nil, problem.Input(p.pointer(), "key %q appears twice", k).Hint("keep one of the two entries")
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after key %q", k)
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		m[k] = v
		keys = append(keys, k)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.record(m, keys)
			return m, nil
		default:
			return nil, p.fail("expected ',' or '}' after an object value")
		}
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.pos++ // [
	list := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return list, nil
	}
	for {
		p.path = append(p.path, strconv.Itoa(len(list)))
		if p.index != nil {
			p.skipSpace()
			p.index[p.pointer()] = p.pos
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		list = append(list, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return list, nil
		default:
			return nil, p.fail("expected ',' or ']' after an array element")
		}
	}
}

// string reads a quoted string. Strings without escapes, the common case even
// for a 1 MiB prompt, are copied once; others go through encoding/json.
func (p *jsonParser) string() (string, error) {
	start := p.pos
	p.pos++
	escaped := false
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if !escaped {
				body := raw[1 : len(raw)-1]
				if !utf8.Valid(body) {
					var s string
					_ = json.Unmarshal(raw, &s) // replaces invalid bytes as encoding/json does
					return s, nil
				}
				return string(body), nil
			}
			out, ok := unescape(raw[1 : len(raw)-1])
			if !ok {
				p.pos = start
				return "", p.fail("invalid escape in a string")
			}
			return out, nil
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return "", p.fail("control character %q in a string: escape it", c)
		default:
			p.pos++
		}
	}
	p.pos = start
	return "", p.fail("string never closed")
}

func (p *jsonParser) literal(word string, v any) (any, error) {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return v, nil
	}
	return nil, p.fail("invalid literal, expected %s", word)
}

func (p *jsonParser) number() (any, error) {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.pos++
			continue
		}
		break
	}
	text := string(p.data[start:p.pos])
	if !json.Valid(p.data[start:p.pos]) {
		p.pos = start
		return nil, p.fail("invalid number %q", text)
	}
	return number(text)
}

// unescape decodes the body of a JSON string that holds escapes, copying the
// runs between backslashes whole.
func unescape(body []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(body))
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			b.Write(body)
			break
		}
		b.Write(body[:i])
		body = body[i:]
		if len(body) < 2 {
			return "", false
		}
		n := 2
		switch body[1] {
		case '"', '\\', '/':
			b.WriteByte(body[1])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(body[2:])
			if !ok {
				return "", false
			}
			n = 6
			if utf16.IsSurrogate(r) {
				r2, ok := hex4(body[min(8, len(body)):])
				if dec := utf16.DecodeRune(r, r2); ok && len(body) >= 8 && body[6] == '\\' && body[7] == 'u' && dec != utf8.RuneError {
					r, n = dec, 12
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return "", false
		}
		body = body[n:]
	}
	out := b.String()
	if !utf8.ValidString(out) {
		return validUTF8(out), true
	}
	return out, true
}

// validUTF8 replaces each invalid byte with U+FFFD, as encoding/json does.
func validUTF8(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		b.WriteRune(r) // ranging yields utf8.RuneError for each invalid byte
	}
	return b.String()
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}
