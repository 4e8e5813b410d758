package problem

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// An error quotes input to say what is wrong, and input may be anything: a
// key of five million characters, a number of a hundred thousand digits.
// What an error says is bounded, so that a message never costs more than
// the mistake is worth, nor echoes an attacker's bytes back in full.
const (
	// QuoteBytes is the most of one input value a message quotes.
	QuoteBytes = 200
	// textBytes bounds each text of an error: its reason, field, position
	// and each hint.
	textBytes = 1 << 10
	// maxHints bounds the hints of one error, and hintBytes all of them
	// together, so that one error's own texts stay well within ErrorBytes.
	maxHints  = 8
	hintBytes = 4 << 10
	// ErrorBytes bounds the texts of an error together with the problems
	// it lists (JSON adds its punctuation, and escapes).
	ErrorBytes = 16 << 10
)

// Quote is s quoted as %q quotes it, cut to QuoteBytes of s; a cut says
// how long s was.
func Quote(s string) string {
	if len(s) <= QuoteBytes {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:cutAt(s, QuoteBytes)]) + fmt.Sprintf("... (%d bytes in all)", len(s))
}

// Clip cuts s to at most n bytes, at a character boundary, and says how
// many bytes it left out.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:cutAt(s, n)] + fmt.Sprintf("... (%d more bytes)", len(s)-cutAt(s, n))
}

// cutAt is the largest character boundary of s at or below n.
func cutAt(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Bounded returns e or, where e says more than an error may, a copy cut to
// size: each text to 1 KiB, at most eight hints, and of the further
// problems it lists, those that fit in 16 KiB with it. Error and the JSON
// encoding say what Bounded returns.
func (e *Error) Bounded() *Error {
	if e == nil {
		return nil
	}
	left := ErrorBytes
	return e.bounded(&left)
}

func (e *Error) bounded(left *int) *Error {
	if e.withinBounds(*left) {
		*left -= e.size()
		return e
	}
	c := *e
	c.Reason = Clip(c.Reason, textBytes)
	c.Field = Clip(c.Field, textBytes)
	c.Position = Clip(c.Position, textBytes)
	c.Variant = Clip(c.Variant, textBytes)
	c.Example = Clip(c.Example, textBytes)
	c.Path = Clip(c.Path, textBytes)
	c.Parameter = Clip(c.Parameter, textBytes)
	c.Flag = Clip(c.Flag, textBytes)
	c.Key = Clip(c.Key, textBytes)
	c.Hints = nil
	hints := 0
	for i, h := range e.Hints {
		h = Clip(h, textBytes)
		if i == maxHints || hints+len(h) > hintBytes {
			c.Hints = append(c.Hints, fmt.Sprintf("(%d more hints)", len(e.Hints)-i))
			break
		}
		hints += len(h)
		c.Hints = append(c.Hints, h)
	}
	c.Also = nil
	*left -= c.ownSize()
	for i, a := range e.Also {
		room := *left
		b := a.bounded(&room)
		if room < 0 {
			c.Also = append(c.Also, &Error{Kind: a.Kind, Reason: fmt.Sprintf("and %d more problems", len(e.Also)-i)})
			break
		}
		*left = room
		c.Also = append(c.Also, b)
	}
	return &c
}

// withinBounds reports whether e, with all it lists, needs no cut.
func (e *Error) withinBounds(left int) bool {
	if e.size() > left || len(e.Hints) > maxHints {
		return false
	}
	hints := 0
	for _, h := range e.Hints {
		hints += len(h)
	}
	if hints > hintBytes {
		return false
	}
	for _, s := range []string{e.Reason, e.Field, e.Position, e.Variant, e.Example, e.Path, e.Parameter, e.Flag, e.Key} {
		if len(s) > textBytes {
			return false
		}
	}
	for _, h := range e.Hints {
		if len(h) > textBytes {
			return false
		}
	}
	for _, a := range e.Also {
		if !a.withinBounds(left) {
			return false
		}
	}
	return true
}

// size is how many bytes e's texts take, with all it lists.
func (e *Error) size() int {
	n := e.ownSize()
	for _, a := range e.Also {
		n += a.size()
	}
	return n
}

func (e *Error) ownSize() int {
	n := len(e.Reason) + len(e.Field) + len(e.Position) + len(e.Variant) + len(e.Example) +
		len(e.Path) + len(e.Parameter) + len(e.Flag) + len(e.Key)
	for _, h := range e.Hints {
		n += len(h)
	}
	return n
}

// MarshalJSON writes e as Bounded cuts it.
func (e *Error) MarshalJSON() ([]byte, error) {
	type plain Error // the same fields, without this method
	return json.Marshal((*plain)(e.Bounded()))
}
