package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// cliError is a problem with the command line or a file it names, rather
// than with a render: what it concerns is a flag or a path. It is printed
// like an engine error, and under --format json in the same shape.
type cliError struct {
	Kind   engine.Kind `json:"kind"`
	Reason string      `json:"reason"`
	Flag   string      `json:"flag,omitempty"` // "--tokens", "--dir"
	Path   string      `json:"path,omitempty"` // a file read or written, an address
	Key    string      `json:"key,omitempty"`  // an audit hash or id
	Hints  []string    `json:"hints,omitempty"`
	err    error
}

func (e *cliError) Error() string {
	var b strings.Builder
	for _, subject := range []string{e.Flag, e.Path, e.Key} {
		if subject != "" {
			b.WriteString(subject + ": ")
		}
	}
	b.WriteString(e.Reason)
	for _, h := range e.Hints {
		b.WriteString("\n  hint: " + h)
	}
	return b.String()
}

func (e *cliError) Unwrap() error { return e.err }

// usageError is a mistake in the command line.
func usageError(format string, args ...any) error {
	return &cliError{Kind: engine.KindUsage, Reason: fmt.Sprintf(format, args...), Hints: []string{"run render --help"}}
}

// fileError is a file the command could not read or write.
func fileError(path, reason string, err error, hints ...string) error {
	return &cliError{Kind: engine.KindUsage, Path: path, Reason: reason + ": " + err.Error(), Hints: hints, err: err}
}

// auditError says what the audit store's error means for the command: a
// key that names no prompt is the caller's input, anything else its setup.
func auditError(err error) error {
	var ae *audit.Error
	if !errors.As(err, &ae) {
		return err
	}
	kind := engine.KindUsage
	if errors.Is(err, audit.ErrNotFound) || errors.Is(err, audit.ErrAmbiguous) {
		kind = engine.KindInput
	}
	return &cliError{Kind: kind, Path: ae.Path, Key: ae.Key, Reason: ae.Reason, Hints: ae.Hints, err: err}
}

// describe returns what fail prints for err: a cliError, an engine error,
// or, for anything else, the program's own fault.
func describe(err error) (kind engine.Kind, body any, text string) {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.Kind, ce, ce.Error()
	}
	e := engine.AsError(err).Bounded()
	return e.Kind, e, e.Error()
}
