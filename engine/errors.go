package engine

import (
	"errors"
	"fmt"

	"github.com/promptsmith/promptsmith/internal/problem"
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
	// KindCancelled: the caller cancelled the context or its deadline
	// passed; errors.Is finds context.Canceled or DeadlineExceeded.
	KindCancelled = problem.KindCancelled
)

// ErrUnknownVariant is wrapped by the error Variant returns for a name the
// library does not have.
var ErrUnknownVariant = errors.New("unknown variant")

// AsError returns err as an *Error. A foreign error, which no stage made, is
// the program's own fault: KindInternal, never blamed on the caller.
func AsError(err error) *Error { return problem.As(err) }

// BudgetTooSmall is the cause of the error FitTokens returns when the
// prompt does not fit even with everything its budget may cut cut: the
// numbers a caller needs to pick a limit that works (errors.As finds it).
type BudgetTooSmall struct {
	MinTokens  int // the smallest the fit made the prompt (with every cut made, unless a cut's note cost more than it saved)
	MaxTokens  int // the limit asked for
	FullTokens int // the prompt with no cut
}

func (b *BudgetTooSmall) Error() string {
	return fmt.Sprintf("the prompt needs at least %d tokens, over the limit of %d", b.MinTokens, b.MaxTokens)
}
