package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says which party must act on an error: the caller (bad input), the author
// (a template, schema or manifest), or nobody yet (a check the output failed).
type Kind string

const (
	KindInput    Kind = "input"    // the input document is malformed or violates the schema or a rule
	KindTemplate Kind = "template" // a template, manifest or schema in the library is wrong
	KindCheck    Kind = "check"    // the rendered prompt failed a check declared in the manifest
	KindUsage    Kind = "usage"    // the call itself is wrong (unknown variant, example, flag)
)

// Error is the one error type the engine returns. Field locates the problem: a
// JSON pointer into the input ("/trigger/from") or a file position
// ("templates/<variant>/<section>.md.tmpl:4:12"). Hints say what to do about it.
type Error struct {
	Kind     Kind     `json:"kind"`
	Reason   string   `json:"reason"`
	Field    string   `json:"field,omitempty"`
	Position string   `json:"position,omitempty"` // file:line:col of Field in the input, when known
	Hints    []string `json:"hints,omitempty"`
	Also     []*Error `json:"also,omitempty"` // further problems found in the same pass
	Err      error    `json:"-"`
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Position != "" {
		b.WriteString(e.Position)
		b.WriteString(": ")
	}
	if e.Field != "" && e.Field != e.Position {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	for _, h := range e.Hints {
		b.WriteString("\n  hint: ")
		b.WriteString(h)
	}
	for _, a := range e.Also {
		b.WriteString("\n")
		b.WriteString(a.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as an *Error, wrapping foreign errors so that callers
// always get the structured form.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: KindUsage, Reason: err.Error(), Err: err}
}

func inputErr(field, format string, args ...any) *Error {
	return &Error{Kind: KindInput, Field: field, Reason: fmt.Sprintf(format, args...)}
}

func authorErr(field, format string, args ...any) *Error {
	return &Error{Kind: KindTemplate, Field: field, Reason: fmt.Sprintf(format, args...)}
}

func (e *Error) hint(format string, args ...any) *Error {
	e.Hints = append(e.Hints, fmt.Sprintf(format, args...))
	return e
}
