package server

import (
	"context"
	"runtime"
	"testing"
)

// TestGateShares: the renders of one label hold at most all the slots but
// one: a label whose renders take their deadline to end leaves the others
// a slot. Without a label, renders take every slot.
func TestGateShares(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	waits := 0
	waiting, done := func() { waits++ }, func() {}
	g := newGate(2, 10)
	if err := g.enter(ctx, "review", waiting, done); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() { second <- g.enter(ctx, "review", func() {}, func() {}) }()
	// The second render of review waits for its label's share, so the
	// slot it does not hold is production's at once.
	if err := g.enter(ctx, "production", waiting, done); err != nil || waits != 0 {
		t.Fatalf("production: %v, after %d waits", err, waits)
	}
	g.leave("review")
	if err := <-second; err != nil {
		t.Fatalf("the second render of review, once the first left: %v", err)
	}
	g.leave("review")
	g.leave("production")

	// Without labels, renders take every slot.
	for range 2 {
		if err := g.enter(ctx, "", waiting, done); err != nil || waits != 0 {
			t.Fatalf("no label: %v, after %d waits", err, waits)
		}
	}
	g.leave("")
	g.leave("")

	// A render that gives up waiting for its label's share gives back its
	// place in the queue.
	one := newGate(1, 5)
	if err := one.enter(ctx, "review", waiting, done); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := one.enter(cancelled, "review", waiting, done); err != context.Canceled {
		t.Fatalf("a cancelled wait: %v, want context.Canceled", err)
	}
	if len(one.tickets) != 1 || len(one.shares["review"].running) != 1 {
		t.Errorf("after a cancelled wait: %d tickets, %d of review's share; want the first render's alone", len(one.tickets), len(one.shares["review"].running))
	}
	one.leave("review")
	if len(one.tickets) != 0 || len(one.slots) != 0 || len(one.shares["review"].running) != 0 {
		t.Errorf("tokens left: %d tickets, %d slots, %d of review's share", len(one.tickets), len(one.slots), len(one.shares["review"].running))
	}

	// However many renders a label has waiting, they take at most the
	// queue's places: another label still gets in.
	queued := newGate(2, 4)
	if err := queued.enter(ctx, "review", waiting, done); err != nil {
		t.Fatal(err)
	}
	stop, cancelWaits := context.WithCancel(ctx)
	gaveUp := make(chan error, 3)
	for range 3 {
		go func() { gaveUp <- queued.enter(stop, "review", func() {}, func() {}) }()
	}
	for len(queued.shares["review"].tickets) < 4 { // the three have their tickets
		runtime.Gosched()
	}
	if err := queued.enter(ctx, "review", waiting, done); err != errBusy {
		t.Errorf("a fifth render of review, its part of the queue full: %v, want errBusy", err)
	}
	if err := queued.enter(ctx, "production", waiting, done); err != nil {
		t.Errorf("production, with review's part of the queue full: %v", err)
	}
	cancelWaits()
	for range 3 {
		if err := <-gaveUp; err != context.Canceled {
			t.Errorf("a waiting render of review, cancelled: %v", err)
		}
	}
	queued.leave("production")
	queued.leave("review")
	if len(queued.tickets) != 0 || len(queued.slots) != 0 || len(queued.shares["review"].tickets) != 0 || len(queued.shares["review"].running) != 0 {
		t.Errorf("tokens left: %d tickets, %d slots, review %d tickets %d running", len(queued.tickets), len(queued.slots),
			len(queued.shares["review"].tickets), len(queued.shares["review"].running))
	}
}
