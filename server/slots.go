package server

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// DefaultMaxQueue is how many renders may wait for a slot by default. A
// render takes about a millisecond, so a full queue on two cores clears in
// tens of milliseconds; past it a client is told to come back (503) rather
// than every request sharing the CPU and all of them slowing down.
const DefaultMaxQueue = 64

// DefaultRenderTimeout bounds the work on one render or check request,
// waiting for a slot included: the engine's own limit on a render
// (engine.DefaultLimits' Timeout, 10 s) and 5 s of waiting. A template
// that runs away thus meets the engine's limit first, and is answered as
// the template's fault (500), not as a server too busy to finish (503,
// retry).
const DefaultRenderTimeout = 15 * time.Second

// inSlot runs work in a render slot: the one way a request takes one
// (render, check, extract, lint, golden). It waits for the slot in the
// queue (promptsmith_renders_queued), under RenderTimeout, and gives the
// slot back once work returns. Its error is work's, or, when the request
// got no slot or the server or its client stopped work, the 503 that says
// so (stoppedError), which writeError answers with Retry-After.
func inSlot[T any](s *Server, ctx context.Context, work func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := s.renderContext(ctx)
	defer cancel()
	label := shareOf(ctx)
	if err := s.enter(ctx, label); err != nil {
		var none T
		return none, answerError(ctx, err)
	}
	defer s.leave(label)
	v, err := work(ctx)
	return v, answerError(ctx, err)
}

// renderContext bounds a request's render by RenderTimeout, with a cause
// that tells its expiry from the client leaving.
func (s *Server) renderContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.RenderTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, s.RenderTimeout, errRenderTimeout)
}

// renderContextAfter is renderContext for a render that waited for room to
// hold its body: the wait counts against the same bound.
func (s *Server) renderContextAfter(ctx context.Context, waited time.Duration) (context.Context, context.CancelFunc) {
	if s.RenderTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, s.RenderTimeout-waited, errRenderTimeout)
}

// answerError is the error a request in a render slot answers with: err,
// or why the server or its client stopped the request (stoppedError). A
// request that ended well is not turned into a stopped one because its
// deadline passed as it finished.
func answerError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if stop := stoppedError(ctx, err); stop != nil {
		return stop
	}
	return err
}

// enter waits for a render slot, counting the wait in the queue metrics:
// every render that gets a slot is observed in promptsmith_render_queue_seconds,
// one that found a slot free with a wait of zero, so that the histogram's
// count is the renders that ran; promptsmith_renders_queued counts those
// waiting now.
func (s *Server) enter(ctx context.Context, label string) error {
	since := time.Now()
	err := s.renderGate().enter(ctx, label, s.metrics.queued.Inc, s.metrics.queued.Dec)
	if err == nil {
		s.metrics.wait.Observe(time.Since(since).Seconds())
		s.metrics.inFlight.Inc()
	}
	return err
}

func (s *Server) leave(label string) {
	s.metrics.inFlight.Dec()
	s.renderGate().leave(label)
}

// shareKey is the context key of the label whose share of the render slots
// a request takes (shareOf).
type shareKey struct{}

// withShare notes in r's context the label whose share of the slots its
// render takes: on a server of several labels, the label it names or the
// default. On a server of one label, or none, there is nothing to share.
func (s *Server) withShare(r *http.Request) *http.Request {
	if s.Labels == nil || len(s.Labels.Config().Labels) < 2 {
		return r
	}
	label, err := requestLabel(r)
	if err != nil {
		return r // answered 400 before any render
	}
	if label == "" {
		label = s.Labels.Default()
	}
	return r.WithContext(context.WithValue(r.Context(), shareKey{}, label))
}

// shareOf is the label withShare noted, "" for none.
func shareOf(ctx context.Context) string {
	label, _ := ctx.Value(shareKey{}).(string)
	return label
}

func (s *Server) renderGate() *gate {
	s.gateOnce.Do(func() { s.gate = newGate(s.MaxRenders, s.MaxQueue) })
	return s.gate
}

// gate bounds the renders that run at once: at most cap(slots) run, at most
// cap(tickets)-cap(slots) more wait for a slot, and the rest are turned away.
// The renders of one label hold at most all the slots but one, and at most
// the queue's places, so that a label whose templates loop until their
// deadline (a commit under review), however many requests it gets, cannot
// keep the others from rendering.
type gate struct {
	slots   chan struct{} // one token per running render
	tickets chan struct{} // one token per render running or waiting
	mu      sync.Mutex
	shares  map[string]*share // by label
}

// share is what one label's renders hold of a gate.
type share struct {
	running chan struct{} // one token per running render: all the slots but one
	tickets chan struct{} // one token per render running or waiting: the queue's places
}

// newGate returns a gate for run renders at once (GOMAXPROCS when run < 1)
// and queue more waiting.
func newGate(run, queue int) *gate {
	if run < 1 {
		run = runtime.GOMAXPROCS(0)
	}
	queue = max(queue, 0)
	return &gate{slots: make(chan struct{}, run), tickets: make(chan struct{}, run+queue), shares: map[string]*share{}}
}

// share is a label's share of the gate; nil for no label.
func (g *gate) share(label string) *share {
	if label == "" {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shares[label] == nil {
		run := cap(g.slots)
		g.shares[label] = &share{running: make(chan struct{}, max(1, run-1)), tickets: make(chan struct{}, max(1, cap(g.tickets)-run))}
	}
	return g.shares[label]
}

// enter takes a slot, waiting in the queue while every slot is taken, or
// while the label's renders hold their share of them. It returns errBusy
// at once when the queue is full too, or the label's part of it, and ctx's
// error when ctx ends first. waiting is called when it has to wait, and
// done when it stops waiting, for the queue gauge.
func (g *gate) enter(ctx context.Context, label string, waiting, done func()) error {
	sh := g.share(label)
	if sh != nil && !tryTake(sh.tickets) {
		return errBusy
	}
	if !tryTake(g.tickets) {
		if sh != nil {
			<-sh.tickets
		}
		return errBusy
	}
	waited := false
	defer func() {
		if waited {
			done()
		}
	}()
	take := func(tokens chan struct{}) error {
		if tryTake(tokens) {
			return nil
		}
		if !waited {
			waited = true
			waiting()
		}
		select {
		case tokens <- struct{}{}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	giveBack := func() {
		<-g.tickets
		if sh != nil {
			<-sh.tickets
		}
	}
	if sh != nil {
		if err := take(sh.running); err != nil {
			giveBack()
			return err
		}
	}
	if err := take(g.slots); err != nil {
		if sh != nil {
			<-sh.running
		}
		giveBack()
		return err
	}
	return nil
}

// tryTake takes a token of tokens if one is free.
func tryTake(tokens chan struct{}) bool {
	select {
	case tokens <- struct{}{}:
		return true
	default:
		return false
	}
}

// leave gives back the slot enter took for label.
func (g *gate) leave(label string) {
	<-g.slots
	<-g.tickets
	if sh := g.share(label); sh != nil {
		<-sh.running
		<-sh.tickets
	}
}
