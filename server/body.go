package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/promptsmith/promptsmith/engine"
)

// bodyBudget bounds the bytes of request bodies the server holds at once,
// so that its memory does not grow with the number of clients: a request
// reserves its Content-Length (MaxBody without one) before a byte of its
// body is read, and gives it back when it is answered. At most cap(waiting)
// requests wait for room; past them the server answers 503 at once, as the
// render queue does.
type bodyBudget struct {
	size    int64
	bytes   *semaphore.Weighted
	waiting chan struct{} // one token per request waiting for room
}

func newBodyBudget(size int64, queue int) *bodyBudget {
	return &bodyBudget{size: size, bytes: semaphore.NewWeighted(size), waiting: make(chan struct{}, max(queue, 0))}
}

// take reserves n bytes (n ≤ size), waiting in turn while they are not
// free. It returns errBusy at once when the queue is full, and ctx's error
// when ctx ends first. waiting is called when it has to wait, and done
// when it stops waiting, for the gauge.
func (b *bodyBudget) take(ctx context.Context, n int64, waiting, done func()) error {
	if b.bytes.TryAcquire(n) {
		return nil
	}
	select {
	case b.waiting <- struct{}{}:
	default:
		return errBusy
	}
	defer func() { <-b.waiting }()
	waiting()
	defer done()
	return b.bytes.Acquire(ctx, n)
}

// give gives back n bytes that take reserved.
func (b *bodyBudget) give(n int64) {
	if n > 0 {
		b.bytes.Release(n)
	}
}

// bodies is the server's body budget: room for a body of MaxBody in each
// render slot, which is what the slots could hold if bodies were read
// only once a slot is free, without tying a slot to a slow upload.
func (s *Server) bodies() *bodyBudget {
	s.budgetOnce.Do(func() {
		s.budget = newBodyBudget(int64(cap(s.renderGate().slots))*max(s.MaxBody, 1), s.MaxQueue)
	})
	return s.budget
}

// body reads a request's body for an endpoint that reads kind: it checks
// the Content-Type, refuses a Content-Length over MaxBody before reading
// anything, waits for room in the body budget (for at most RenderTimeout)
// and reads at most MaxBody bytes. It returns the body with the function
// that gives its room back, to call once the body is no longer needed, and
// how long it waited for room, which the render's bound counts (the
// upload's own time is --read-timeout's and --min-body-rate's).
// Whatever it refuses is answered without reading the rest of the body:
// statusWriter closes the connection instead.
func (s *Server) body(w http.ResponseWriter, r *http.Request, kind bodyKind) ([]byte, func(), time.Duration, error) {
	if err := checkContentType(r, kind); err != nil {
		if kind == inputBody {
			w.Header().Set("Accept-Post", "application/json, application/yaml")
		}
		return nil, nil, 0, err
	}
	if r.ContentLength > s.MaxBody {
		return nil, nil, 0, &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("the request body is %d bytes, over the server's limit of %d", r.ContentLength, s.MaxBody),
			Hints: []string{"send a smaller body, or start the server with a larger --max-body"}, Err: errTooLarge}
	}
	budget := s.bodies()
	reserved := r.ContentLength
	if reserved < 0 { // unknown until read: room for the largest
		reserved = s.MaxBody
	}
	reserved = min(reserved, budget.size)
	since := time.Now()
	if err := s.waitForRoom(r.Context(), budget, reserved); err != nil {
		return nil, nil, 0, err
	}
	waited := time.Since(since)
	s.metrics.bodyBytes.Add(float64(reserved))
	if s.bodyHook != nil {
		s.bodyHook(1)
	}
	held := reserved
	give := func(n int64) {
		budget.give(n)
		s.metrics.bodyBytes.Sub(float64(n))
	}
	release := func() {
		if s.bodyHook != nil { // before the room goes to a waiter, which counts itself in
			s.bodyHook(-1)
		}
		give(held)
	}
	data, err := readBody(http.MaxBytesReader(w, r.Body, s.MaxBody), r.ContentLength)
	if err != nil {
		release()
		return nil, nil, 0, s.readError(err)
	}
	give(reserved - int64(len(data)))
	held = int64(len(data))
	return data, release, waited, nil
}

// readBody reads r to its end into one buffer of size bytes when size is
// known (io.ReadAll would grow its buffer by steps, holding about twice
// the body at its peak).
func readBody(r io.Reader, size int64) ([]byte, error) {
	if size < 0 {
		return io.ReadAll(r)
	}
	data := make([]byte, 0, size+1) // +1: room for the read that finds the end
	for {
		if len(data) == cap(data) { // longer than said: net/http does not let that happen
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		switch {
		case err == io.EOF:
			return data, nil
		case err != nil:
			return data, err
		}
	}
}

// waitForRoom waits for n bytes of the body budget, for at most
// RenderTimeout, and says why it did not get them.
func (s *Server) waitForRoom(ctx context.Context, budget *bodyBudget, n int64) error {
	ctx, cancel := s.renderContext(ctx)
	defer cancel()
	err := budget.take(ctx, n, s.metrics.bodiesWaiting.Inc, s.metrics.bodiesWaiting.Dec)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errBusy):
		return &engine.Error{Kind: engine.KindUnavailable,
			Reason: "the server holds as many request bodies as its memory budget allows (--max-renders × --max-body bytes), and as many more requests wait for room",
			Hints:  []string{"retry after the seconds in Retry-After; an operator can raise --max-renders, --max-queue or lower --max-body"}, Err: errBusy}
	case context.Cause(ctx) == errRenderTimeout:
		return &engine.Error{Kind: engine.KindUnavailable,
			Reason: "no room to hold the request body was freed within the server's --render-timeout",
			Hints:  []string{"retry after the seconds in Retry-After"}, Err: errRenderTimeout}
	}
	return &engine.Error{Kind: engine.KindUnavailable, Reason: "the client went away before its body was read", Err: fmt.Errorf("%w: %w", errClientGone, err)}
}

// readError is the error of a body that could not be read whole.
func (s *Server) readError(err error) error {
	var tooBig *http.MaxBytesError
	var slow *slowBodyError
	switch {
	case errors.As(err, &tooBig):
		return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf("the request body is over %d bytes", s.MaxBody),
			Hints: []string{"start the server with a larger --max-body"}, Err: errTooLarge}
	case errors.As(err, &slow):
		return &engine.Error{Kind: engine.KindUsage, Reason: slow.Error(),
			Hints: []string{"send the body as fast as the link allows; an operator can lower --min-body-rate or raise --read-timeout"}, Err: fmt.Errorf("%w: %w", errSlowBody, err)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &engine.Error{Kind: engine.KindUsage,
			Reason: "the request body did not arrive within the server's --read-timeout",
			Hints:  []string{"send the body as fast as the link allows; an operator can raise --read-timeout"}, Err: fmt.Errorf("%w: %w", errSlowBody, err)}
	}
	return &engine.Error{Kind: engine.KindUsage, Reason: "cannot read the request body: " + err.Error(), Err: err}
}

// bodyWatch remembers whether a request's body was read to its end.
type bodyWatch struct {
	io.ReadCloser
	done bool
}

func (b *bodyWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.done = true
	}
	return n, err
}

// watchBody puts a bodyWatch on a request with a body, and returns it (nil
// when there is no body). With r.Body replaced, net/http no longer sees
// how much of the body is left when the answer begins, and would read up
// to 256 KiB of it first, however slowly it comes: statusWriter calls
// dropUnread before any answer for that reason too.
func watchBody(r *http.Request) *bodyWatch {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b := &bodyWatch{ReadCloser: r.Body}
	r.Body = b
	return b
}

// dropUnread makes an answer to a request whose body was not read whole
// close the connection without reading the rest. net/http would read up
// to 256 KiB of it first, before or after the answer, so that the
// connection could serve another request; a client sending a byte a second
// would hold the connection, and the goroutine, until --read-timeout. A
// read deadline in the past ends that read at once.
func dropUnread(w http.ResponseWriter, body *bodyWatch) {
	if body == nil || body.done {
		return
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}
