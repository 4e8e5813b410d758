package input

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/problem"
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

// number converts the text of a JSON number: an int64 when its value is
// whole, else a float64. A number out of the range of int64 is refused,
// however it is written (9223372036854775808, 1e19), so that a template
// never compares a float with an integer it could not hold.
func number(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	if !strings.ContainsAny(s, ".eE") {
		return nil, outOfRange(s) // an integer ParseInt refused: beyond int64's range
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, outOfRange(s)
	}
	return finite(f, s)
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
	path     path // the keys and indexes down to the current value, for errors
	// elems and keys gather the elements of the arrays and the keys of the
	// objects being read, innermost last, so that each list and key order
	// is allocated once at its final size rather than grown by doubling.
	elems []any
	keys  []string
}

// pointer is the JSON pointer of the current value, built only for errors.
func (p *jsonParser) pointer() string {
	return p.path.pointer()
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

func (p *jsonParser) skipSpace() { p.pos = skipJSONSpace(p.data, p.pos) }

// skipJSONSpace is the offset of the first byte at or after i that is not
// JSON's white space.
func skipJSONSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
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
		s, err := p.string()
		if err != nil {
			return nil, p.textError(err, "string")
		}
		return s, nil
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
	base := len(p.keys)
	defer func() { p.keys = p.keys[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.record(m, nil)
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
			return nil, p.textError(err, "key")
		}
		p.path = append(p.path, step{key: k, index: -1})
		if _, dup := m[k]; dup {
			p.pos = keyAt
			return nil, problem.Input(p.pointer(), "key %s appears twice", phrase.Quote(k)).Hint("keep one of the two entries")
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after key %s", phrase.Quote(k))
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		m[k] = v
		p.keys = append(p.keys, k)
		if closed, err := p.separator('}', "an object", "an object value"); err != nil {
			return nil, err
		} else if closed {
			p.record(m, slices.Clone(p.keys[base:]))
			return m, nil
		}
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.pos++ // [
	base := len(p.elems)
	defer func() {
		clear(p.elems[base:]) // let the values go with the list, not the parser
		p.elems = p.elems[:base]
	}()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return []any{}, nil
	}
	for {
		p.path = append(p.path, step{index: len(p.elems) - base})
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		p.elems = append(p.elems, v)
		if closed, err := p.separator(']', "an array", "an array element"); err != nil {
			return nil, err
		} else if closed {
			return slices.Clone(p.elems[base:]), nil
		}
	}
}

// separator reads what follows a value inside an object or an array: a
// comma, or the closer, which it reports as closed.
func (p *jsonParser) separator(closer byte, in, after string) (closed bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.fail("unexpected end of input in %s", in)
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closer:
		p.pos++
		return true, nil
	}
	return false, p.fail("expected ',' or '%c' after %s", closer, after)
}

// string reads a quoted string. Strings without escapes, the common case even
// for a 1 MiB prompt, are copied once. A string that is not text (NUL, bytes
// that are not UTF-8, an unpaired surrogate) is refused with a *notText,
// p.pos at the offending character.
func (p *jsonParser) string() (string, error) {
	start := p.pos
	data := p.data
	i := start + 1
	for {
		// Eight bytes at a time while none of them needs a look: most of a
		// long string, such as a parent prompt, is plain ASCII. Escapes are
		// not looked at here (a parent prompt has one on every line), only
		// the quote that may end the string.
		for i+8 <= len(data) {
			if mask := special(binary.LittleEndian.Uint64(data[i:])); mask != 0 {
				i += bits.TrailingZeros64(mask) / 8 // the first byte flagged needs the look
				break
			}
			i += 8
		}
		if i >= len(data) {
			p.pos = start
			return "", p.fail("string never closed")
		}
		switch c := data[i]; {
		case c == '"':
			if escapedAt(data, start+1, i) {
				i++
				continue
			}
			p.pos = i + 1
			body := data[start+1 : i]
			if bytes.IndexByte(body, '\\') < 0 {
				return string(body), nil
			}
			out, at, err := unescape(body)
			if err != nil {
				if _, isText := err.(*notText); isText {
					p.pos = start + 1 + at
					return "", err
				}
				p.pos = start
				return "", p.fail("invalid escape in a string")
			}
			return out, nil
		case c == 0:
			p.pos = i
			return "", errNUL()
		case c < 0x20:
			p.pos = i
			return "", p.fail("control character %q in a string: escape it", c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(data[i:]) {
					// The input ends inside a character: it was cut short.
					p.pos = start
					return "", p.fail("string never closed")
				}
				p.pos = i
				return "", &notText{fmt.Sprintf("holds the byte 0x%02x, which is not UTF-8", c)}
			}
			i += size
		default:
			i++
		}
	}
}

// escapedAt reports whether the quote at data[i] is escaped: preceded,
// after from, by an odd number of backslashes.
func escapedAt(data []byte, from, i int) bool {
	n := 0
	for j := i - 1; j >= from && data[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// special reports, as a non-zero result, whether one of the eight bytes of
// x may need a look inside a JSON string: a quote, a control byte or a byte
// of a multi-byte character. It may report a byte that needs
// none (a borrow between bytes), but never misses one, and the lowest byte it
// reports always needs the look: a borrow comes from a byte reported below.
func special(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	return ((quote - ones) | (x - ones*0x20) | x) & highs
}

// textError turns a string that is not text into an input error naming the
// field (for a key, the object holding it); other errors pass.
func (p *jsonParser) textError(err error, what string) error {
	nt, ok := err.(*notText)
	if !ok {
		return err
	}
	return nt.problem(p.pointer(), what)
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
		return nil, p.fail("invalid number %s", phrase.Quote(text))
	}
	v, err := number(text)
	if err != nil {
		p.pos = start
		e := problem.As(err)
		e.Field = p.pointer()
		return nil, e
	}
	return v, nil
}

// unescape decodes the body of a JSON string that holds escapes, copying the
// runs between backslashes whole. An escape that is malformed, or stands for
// NUL or half a surrogate pair, is an error at its offset in body. A parent
// prompt has an escape on every line, so the search for the next one and
// the common escapes are done here, without a call per escape.
func unescape(body []byte) (string, int, error) {
	out := make([]byte, 0, len(body)) // escapes only ever shorten the text
	at := 0
	for {
		i := nextBackslash(body, at)
		out = append(out, body[at:i]...)
		if i == len(body) {
			// out is never written again: it becomes the string as it is.
			return unsafe.String(unsafe.SliceData(out), len(out)), 0, nil
		}
		if i+1 < len(body) {
			if c := shortEscape(body[i+1]); c != 0 {
				out = append(out, c)
				at = i + 2
				continue
			}
		}
		var n int
		var err error
		if out, n, err = appendUnicodeEscape(out, body[i:]); err != nil {
			return "", i, err
		}
		at = i + n
	}
}

// nextBackslash is the offset of the first backslash of b at or after from,
// or len(b), read eight bytes at a time.
func nextBackslash(b []byte, from int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := from
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:]) ^ (ones * '\\')
		if m := (v - ones) &^ v & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && b[i] != '\\' {
		i++
	}
	return i
}

// shortEscape is the byte a two-character escape stands for, or 0.
func shortEscape(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// appendUnicodeEscape appends the character of the \uXXXX escape (or
// surrogate pair) that starts esc, and returns how many bytes it takes.
func appendUnicodeEscape(out, esc []byte) ([]byte, int, error) {
	if len(esc) < 2 || esc[1] != 'u' {
		return out, 0, errBadEscape
	}
	r, ok := hex4(esc[2:])
	if !ok {
		return out, 0, errBadEscape
	}
	if r == 0 {
		return out, 0, errNUL()
	}
	if !utf16.IsSurrogate(r) {
		return utf8.AppendRune(out, r), 6, nil
	}
	r2, ok := hex4(esc[min(8, len(esc)):])
	dec := utf16.DecodeRune(r, r2)
	if !ok || len(esc) < 8 || esc[6] != '\\' || esc[7] != 'u' || dec == utf8.RuneError {
		return out, 0, &notText{fmt.Sprintf("holds \\u%04x, half of a UTF-16 surrogate pair without the other half", r)}
	}
	return utf8.AppendRune(out, dec), 12, nil
}

var errBadEscape = errors.New("invalid escape")

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}
