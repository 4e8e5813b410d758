package engine

import (
	"errors"

	"github.com/promptsmith/promptsmith/engine/problem"
)

// Error is the one error type the engine returns; see package problem for
// what each of its fields means.
type Error = problem.Error

// Kind says which party must act on an error.
type Kind = problem.Kind

// The kinds of Error.
const (
	KindInput    = problem.KindInput    // the input is malformed or breaks the schema or a rule
	KindTemplate = problem.KindTemplate // a template, manifest or schema of the library is wrong
	KindCheck    = problem.KindCheck    // the rendered prompt failed a check of the manifest
	KindUsage    = problem.KindUsage    // the call itself is wrong (unknown variant, example)
	KindInternal = problem.KindInternal // the program's own fault
	// KindUnavailable: a service that cannot take the call now; retry.
	KindUnavailable = problem.KindUnavailable
	// KindIntegrity: stored data (an audit record) that does not verify.
	KindIntegrity = problem.KindIntegrity
)

// ErrUnknownVariant is wrapped by the error Variant returns for a name the
// library does not have.
var ErrUnknownVariant = errors.New("unknown variant")

// AsError returns err as an *Error. A foreign error, which no stage made, is
// the program's own fault: KindInternal, never blamed on the caller.
func AsError(err error) *Error { return problem.As(err) }
