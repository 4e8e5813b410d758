package engine

import (
	"context"
	"unsafe"
)

// runWriter is where a render's templates write. text/template knows no
// context, but every template that makes work writes, and a failed write
// ends the execution: so the writer stops a render its caller gave up on,
// or that writes more than the limit, at once.
//
// The text grows in one slice, sized before the render to what the
// variant's renders write (sizeHint), and becomes the Result's text without
// a copy: a 1 MiB prompt is written once, not grown by doubling and copied
// again into a string.
type runWriter struct {
	b    []byte
	ctx  context.Context
	left int // bytes the render may still write
}

func newRunWriter(ctx context.Context, size, limit int) *runWriter {
	return &runWriter{b: make([]byte, 0, min(size, limit)), ctx: ctx, left: limit}
}

func (w *runWriter) Write(p []byte) (int, error) {
	if err := w.allow(len(p)); err != nil {
		return 0, err
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// WriteString writes s without converting it to a []byte first, which
// would copy it: verbatim fields reach the output through it (execSet).
func (w *runWriter) WriteString(s string) (int, error) {
	if err := w.allow(len(s)); err != nil {
		return 0, err
	}
	w.b = append(w.b, s...)
	return len(s), nil
}

func (w *runWriter) allow(n int) error {
	select {
	case <-w.ctx.Done():
		return w.ctx.Err() // canceled, or past its deadline
	default:
	}
	if n > w.left {
		return errOutputLimit
	}
	w.left -= n
	return nil
}

// truncate drops what was written after offset n, giving it back to the
// output limit.
func (w *runWriter) truncate(n int) {
	w.left += len(w.b) - n
	w.b = w.b[:n]
}

// text is what was written, as a string sharing the writer's bytes; the
// writer must not be written to again, which is why it lets go of them.
func (w *runWriter) text() string {
	b := w.b
	w.b = nil
	if len(b) == 0 {
		return ""
	}
	if cap(b) > 2*len(b)+4096 {
		return string(b) // sized for a larger prompt: keep only what it holds
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
