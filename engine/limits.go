package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/promptsmith/promptsmith/internal/phrase"
)

// Limits bound what one render may cost, so that no input and no template
// can take the process down. The defaults are far above what a real prompt
// reaches; an operator may change them (render's --max-* flags, WithLimits).
// A zero field takes its default.
type Limits struct {
	// InputBytes is the largest input accepted. A YAML input may expand
	// through its aliases to four times as many bytes of text, no more.
	InputBytes int
	// Depth is the deepest nesting of the input's values.
	Depth int
	// OutputBytes is the longest prompt a render may write, the joiners
	// between sections included and the sections dropped for writing only
	// white space not; a render that writes more stops as soon as it does.
	// It is also the longest text a template function may build, and a
	// quarter of all the text one render's functions may build together.
	OutputBytes int
	// ListItems is the longest list a template function (until, seq,
	// append, splitList, ...) may build.
	ListItems int
	// Timeout bounds a render whose context sets no earlier deadline: the
	// reading of its input as well as its templates.
	Timeout time.Duration
	// FileBytes is the largest file a library may hold under templates/
	// and schemas/ (a template, a manifest, a schema, an example).
	// Parsing a template costs about eighty times its size in memory, so
	// a library is refused, naming the file, before anything is read.
	FileBytes int
	// LibraryBytes is the most all the files under templates/ and
	// schemas/ may hold together.
	LibraryBytes int
}

// DefaultLimits are the limits of a library loaded without WithLimits.
func DefaultLimits() Limits {
	return Limits{
		InputBytes:   16 << 20,
		Depth:        128,
		OutputBytes:  32 << 20,
		ListItems:    100_000,
		Timeout:      10 * time.Second,
		FileBytes:    1 << 20,
		LibraryBytes: 16 << 20,
	}
}

// LimitsOf is the limits a library loaded with opts has: those of the
// last WithLimits, the defaults for the fields it leaves zero. A loader
// that reads a library from elsewhere (a commit) checks its files against
// them before reading them.
func LimitsOf(opts ...Option) Limits {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o.limits.withDefaults()
}

// WithLimits sets the limits of every render of the library.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	orDefault(&l.InputBytes, d.InputBytes)
	orDefault(&l.Depth, d.Depth)
	orDefault(&l.OutputBytes, d.OutputBytes)
	orDefault(&l.ListItems, d.ListItems)
	orDefault(&l.Timeout, d.Timeout)
	orDefault(&l.FileBytes, d.FileBytes)
	orDefault(&l.LibraryBytes, d.LibraryBytes)
	return l
}

// orDefault sets a limit left zero (or negative) to its default: a limit
// of zero would refuse everything, so it means "not set".
func orDefault[T int | time.Duration](limit *T, def T) {
	if *limit <= 0 {
		*limit = def
	}
}

// errOutputLimit ends a template's execution that wrote past the limit.
var errOutputLimit = errors.New("output limit reached")

// errLimitTimeout is the cause of a render context whose Limits.Timeout
// passed, to tell the library's runaway templates from a caller's own
// deadline or cancellation.
var errLimitTimeout = errors.New("the render's time limit passed")

// withLimit bounds ctx by the library's Limits.Timeout, with a cause of
// its own (errLimitTimeout).
func (v *Variant) withLimit(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, v.lib.opts.limits.Timeout, errLimitTimeout)
}

// callerStopped is the error of a render whose caller ended it (its
// context was cancelled or passed its own deadline), nil when it was the
// library's limit that passed: a kind of its own, wrapping ctx's error.
func (v *Variant) callerStopped(ctx context.Context) error {
	err := ctx.Err()
	if err == nil || context.Cause(ctx) == errLimitTimeout {
		return nil
	}
	reason := "the caller cancelled the render"
	if errors.Is(err, context.DeadlineExceeded) {
		reason = "the caller's deadline passed before the render finished"
	}
	return &Error{Kind: KindCancelled, Variant: v.name, Reason: reason, Err: err}
}

// stopped is the error of a render that ended before it was done under
// ctx: its caller gave up (callerStopped), the library's time limit passed
// or it wrote too much (the library's templates ran away: the author must
// act).
func (v *Variant) stopped(ctx context.Context, err error) error {
	limits := v.lib.opts.limits
	if errors.Is(err, errOutputLimit) {
		return (&Error{Kind: KindTemplate, Variant: v.name, Err: err,
			Reason: fmt.Sprintf("the templates wrote more than the output limit of %s", phrase.Size(limits.OutputBytes))}).
			Hint("a template writes in a loop that does not end soon enough; raise the limit with render's --max-output or Limits.OutputBytes if the prompt really is that long")
	}
	if cerr := v.callerStopped(ctx); cerr != nil {
		return cerr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return (&Error{Kind: KindTemplate, Variant: v.name, Err: err,
			Reason: fmt.Sprintf("the render took longer than its deadline (%s)", limits.Timeout)}).
			Hint("a template loops too long for this input; raise the limit with render's --timeout or Limits.Timeout if the prompt really needs it")
	}
	return &Error{Kind: KindCancelled, Variant: v.name, Reason: "the render was stopped: " + err.Error(), Err: err}
}

// stoppedReading is the error of a render that ended while it decoded or
// validated its input: no template ran, so the input is what took long (a
// YAML input whose aliases expand to much) or the caller gave up.
func (v *Variant) stoppedReading(ctx context.Context, in Input, err error) error {
	if cerr := v.callerStopped(ctx); cerr != nil {
		return cerr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return (&Error{Kind: KindInput, Variant: v.name, Position: in.Name, Err: err,
			Reason: fmt.Sprintf("reading and validating the input took longer than the render's deadline (%s)", v.lib.opts.limits.Timeout)}).
			Hint("send a smaller input, or write out the values its YAML aliases (*name) repeat")
	}
	return &Error{Kind: KindCancelled, Variant: v.name, Reason: "the render was stopped: " + err.Error(), Err: err}
}
