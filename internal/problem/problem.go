// Package problem is the project's one error type and the few helpers that
// phrase what went wrong: every stage of the engine, the command line, the
// HTTP server and the audit store report through it, so that a caller gets
// the same structured error, and the same JSON, from any of them.
package problem

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says which party must act on an error.
type Kind string

const (
	KindInput    Kind = "input"    // the input document is malformed or violates the schema or a rule
	KindTemplate Kind = "template" // a template, manifest or schema in the library is wrong
	KindCheck    Kind = "check"    // the rendered prompt failed a check declared in the manifest
	KindUsage    Kind = "usage"    // the call itself is wrong (unknown variant, example, depth, flag)
	KindInternal Kind = "internal" // nobody's mistake but the program's: report it
	// KindUnavailable is a service that cannot take the call now (every
	// render slot taken, a store that does not answer): retry later.
	KindUnavailable Kind = "unavailable"
	// KindIntegrity is stored data that does not verify (an audit record
	// altered or forged): whoever keeps the store must look.
	KindIntegrity Kind = "integrity"
	// KindCancelled is a call its caller ended, cancelling its context or
	// letting its deadline pass: nobody's mistake, and the error wraps
	// context.Canceled or context.DeadlineExceeded.
	KindCancelled Kind = "cancelled"
)

// Error is a problem with what it concerns as data. Each subject has a field
// of its own, and each field one meaning:
//   - Field is a JSON pointer into the input ("/trigger/from");
//   - Position is file:line:col (or file:line, or file): in the input for
//     input errors, in the library for template errors;
//   - Variant, Example and Level name a variant, an example input and a
//     level of nested extraction;
//   - Check and Section name a manifest check that failed and the section
//     that wrote what it refused;
//   - Path is a file read or written, a URL path or a store's address;
//     Parameter an HTTP query parameter (or a header given twice); Flag
//     a command-line flag; Key an audit hash or id.
type Error struct {
	Kind      Kind     `json:"kind"`
	Reason    string   `json:"reason"`
	Field     string   `json:"field,omitempty"`
	Position  string   `json:"position,omitempty"`
	Variant   string   `json:"variant,omitempty"`
	Example   string   `json:"example,omitempty"`
	Level     int      `json:"level,omitempty"`
	Check     string   `json:"check,omitempty"`
	Section   string   `json:"section,omitempty"`
	Path      string   `json:"path,omitempty"`
	Parameter string   `json:"parameter,omitempty"`
	Flag      string   `json:"flag,omitempty"`
	Key       string   `json:"key,omitempty"`
	Hints     []string `json:"hints,omitempty"`
	Also      []*Error `json:"also,omitempty"` // further problems found in the same pass
	Err       error    `json:"-"`
}

// Error says what Bounded keeps of e: the position, field and reason on the
// first line, a line for each hint and then each further problem.
func (e *Error) Error() string {
	return e.Bounded().text()
}

func (e *Error) text() string {
	var b strings.Builder
	for i, subject := range []string{e.Position, e.Field, e.Flag, e.Parameter, e.Path, e.Key} {
		// A flag, parameter, path or key the reason names already is not
		// said twice.
		if subject != "" && (i < 2 || !strings.Contains(e.Reason, subject)) {
			b.WriteString(subject)
			b.WriteString(": ")
		}
	}
	if e.Level > 0 {
		fmt.Fprintf(&b, "level %d: ", e.Level)
	}
	b.WriteString(e.Reason)
	for _, h := range e.Hints {
		b.WriteString("\n  hint: ")
		b.WriteString(h)
	}
	for _, a := range e.Also {
		b.WriteString("\n")
		b.WriteString(a.text())
	}
	return b.String()
}

// Unwrap gives errors.Is and errors.As the cause and every further problem.
func (e *Error) Unwrap() []error {
	out := make([]error, 0, 1+len(e.Also))
	if e.Err != nil {
		out = append(out, e.Err)
	}
	for _, a := range e.Also {
		out = append(out, a)
	}
	return out
}

// Hint adds a sentence saying what to do, and returns e.
func (e *Error) Hint(format string, args ...any) *Error {
	e.Hints = append(e.Hints, fmt.Sprintf(format, args...))
	return e
}

// As returns err as an *Error. A foreign error is the program's own fault,
// never the caller's, so it becomes KindInternal.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: KindInternal, Reason: err.Error(), Err: err}
}

// Input is a problem with the input field at the JSON pointer field.
func Input(field, format string, args ...any) *Error {
	return &Error{Kind: KindInput, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Template is a problem with the library file at position.
func Template(position, format string, args ...any) *Error {
	return &Error{Kind: KindTemplate, Position: position, Reason: fmt.Sprintf(format, args...)}
}

// Usage is a problem with the call itself.
func Usage(format string, args ...any) *Error {
	return &Error{Kind: KindUsage, Reason: fmt.Sprintf(format, args...)}
}
