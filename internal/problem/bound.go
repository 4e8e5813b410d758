package problem

import (
	"encoding/json"
	"fmt"

	"github.com/promptsmith/promptsmith/internal/phrase"
)

// An error quotes input to say what is wrong, and input may be anything: a
// key of five million characters, a number of a hundred thousand digits.
// What an error says is bounded, so that a message never costs more than
// the mistake is worth, nor echoes an attacker's bytes back in full.
const (
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
	c.Reason = phrase.Clip(c.Reason, textBytes)
	c.Field = phrase.Clip(c.Field, textBytes)
	c.Position = phrase.Clip(c.Position, textBytes)
	c.Variant = phrase.Clip(c.Variant, textBytes)
	c.Example = phrase.Clip(c.Example, textBytes)
	c.Path = phrase.Clip(c.Path, textBytes)
	c.Parameter = phrase.Clip(c.Parameter, textBytes)
	c.Flag = phrase.Clip(c.Flag, textBytes)
	c.Key = phrase.Clip(c.Key, textBytes)
	c.Hints = nil
	hints := 0
	for i, h := range e.Hints {
		h = phrase.Clip(h, textBytes)
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
