package server

import (
	"context"
	"sync"
)

// reloads coalesces reloads: a request that comes while a refresh runs
// waits for the next one, which starts once the running one ends and
// serves every request that came meanwhile. A flood of POST /v1/reload
// is then at most two refreshes at a time however many requests wait,
// and each request still sees the refs as they were when it came.
type reloads struct {
	mu      sync.Mutex
	running bool
	next    *reloadRound // the round every request since the running one started waits for
}

// reloadRound is one refresh and the requests it answers.
type reloadRound struct {
	done    chan struct{}
	err     error
	waiting int // the requests it answers
}

// do runs refresh, or waits for a round that starts after this call, and
// returns its error; or ctx's, when ctx ends first. A round runs to its
// end whichever of its requests leave: refresh gets a context that is
// not cancelled with ctx.
func (rl *reloads) do(ctx context.Context, refresh func(context.Context) error) error {
	rl.mu.Lock()
	if rl.next == nil {
		rl.next = &reloadRound{done: make(chan struct{})}
	}
	round := rl.next
	round.waiting++
	if !rl.running {
		rl.running = true
		go rl.run(context.WithoutCancel(ctx), refresh)
	}
	rl.mu.Unlock()
	select {
	case <-round.done:
		return round.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run runs the waiting rounds one after another until none waits.
func (rl *reloads) run(ctx context.Context, refresh func(context.Context) error) {
	for {
		rl.mu.Lock()
		round := rl.next
		rl.next = nil
		if round == nil {
			rl.running = false
			rl.mu.Unlock()
			return
		}
		rl.mu.Unlock()
		round.err = refresh(ctx)
		close(round.done)
	}
}
