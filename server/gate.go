package server

import (
	"context"
	"runtime"
)

// DefaultMaxQueue is how many renders may wait for a slot by default. A
// render takes about a millisecond, so a full queue on two cores clears in
// tens of milliseconds; past it a client is told to come back (503) rather
// than every request sharing the CPU and all of them slowing down.
const DefaultMaxQueue = 64

// gate bounds the renders that run at once: at most cap(slots) run, at most
// cap(tickets)-cap(slots) more wait for a slot, and the rest are turned away.
type gate struct {
	slots   chan struct{} // one token per running render
	tickets chan struct{} // one token per render running or waiting
}

// newGate returns a gate for run renders at once (GOMAXPROCS when run < 1)
// and queue more waiting.
func newGate(run, queue int) *gate {
	if run < 1 {
		run = runtime.GOMAXPROCS(0)
	}
	queue = max(queue, 0)
	return &gate{slots: make(chan struct{}, run), tickets: make(chan struct{}, run+queue)}
}

// enter takes a slot, waiting in the queue while every slot is taken. It
// returns errBusy at once when the queue is full too, and ctx's error when
// ctx ends first. waiting is called when it has to wait, and done when it
// stops waiting, for the queue gauge.
func (g *gate) enter(ctx context.Context, waiting, done func()) error {
	select {
	case g.tickets <- struct{}{}:
	default:
		return errBusy
	}
	select {
	case g.slots <- struct{}{}:
		return nil
	default:
	}
	waiting()
	defer done()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		<-g.tickets
		return ctx.Err()
	}
}

// leave gives back the slot enter took.
func (g *gate) leave() {
	<-g.slots
	<-g.tickets
}
