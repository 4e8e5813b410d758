package input

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// What an input may hold, the same in JSON and YAML: strings are text,
// numbers fit in 64 bits. Anything else is refused at decode, naming the
// field, rather than passed on to fail somewhere further down (a template,
// a database column, a model's API) or be changed on the way.

// ErrNotText is wrapped by the error for a string, or an object's key, that
// is not text: one holding NUL (U+0000), bytes that are not UTF-8 or, in
// JSON, an escape of half a UTF-16 surrogate pair.
var ErrNotText = errors.New("not text")

// ErrOutOfRange is wrapped by the error for a number an input cannot hold:
// one outside the range of a 64-bit integer, -9223372036854775808 to
// 9223372036854775807, however it is written (9223372036854775808, 1e19,
// 1e999), or not finite (YAML's .inf and .nan).
var ErrOutOfRange = errors.New("number out of range")

// notText says how a string is not text.
type notText struct{ why string }

func (e *notText) Error() string { return e.why }

func errNUL() *notText { return &notText{"holds a NUL character (U+0000)"} }

// problem is the input error for a string (what "string") or a key (what
// "key") at ptr that is not text.
func (e *notText) problem(ptr, what string) *problem.Error {
	reason := "the string " + e.why
	if what == "key" {
		reason = "a key of this object " + e.why
	}
	return (&problem.Error{Kind: problem.KindInput, Field: ptr, Reason: reason, Err: ErrNotText}).
		Hint("input strings must be text: NUL, bytes that are not UTF-8 and unpaired surrogates are refused in JSON and YAML alike; encode binary data (base64) first")
}

// checkText returns the *notText for s when it is not text, else nil.
func checkText(s string) *notText {
	if strings.IndexByte(s, 0) >= 0 {
		return errNUL()
	}
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return &notText{fmt.Sprintf("holds the byte 0x%02x, which is not UTF-8", s[i])}
			}
			i += size
		}
	}
	return nil
}

// outOfRange is the error for a number an input cannot hold.
func outOfRange(text string) *problem.Error {
	return (&problem.Error{Kind: problem.KindInput, Err: ErrOutOfRange,
		Reason: fmt.Sprintf("%s is out of range: a number of the input must lie between %d and %d", phrase.Clip(text, phrase.QuoteBytes), math.MinInt64, math.MaxInt64)}).
		Hint("write a smaller number; an identifier that long is a string (quote it)")
}

// finite refuses infinities, NaN and numbers beyond int64, and turns whole
// numbers into integers, so that 2.0 and 1e3 are the integers a schema's
// "integer" accepts them as. Every float64 of 2^63 or more is whole: such a
// number could only reach a template as a float that no integer compares
// with, so it is refused. text is the number as written.
func finite(f float64, text string) (any, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e := outOfRange(text)
		e.Reason = fmt.Sprintf("%v is not a number a prompt input can hold: write a finite number", f)
		return nil, e
	}
	if f < -(1<<63) || f >= 1<<63 {
		return nil, outOfRange(text)
	}
	if f == math.Trunc(f) {
		return int64(f), nil
	}
	return f, nil
}

// step is one token of the path down to a value: an object's key, or an
// array's index when index >= 0. A path is turned into a JSON pointer only
// when an error needs one, so decoding costs nothing per level for it.
type step struct {
	key   string
	index int
}

type path []step

func (p path) pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(pointer.Escape(s.key))
		}
	}
	return b.String()
}
