package server

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReloadsCoalesce: the requests that come while a refresh runs are
// answered together by one refresh that starts after them, not by one
// refresh each; a request that leaves does not stop the round.
func TestReloadsCoalesce(t *testing.T) {
	t.Parallel()
	var rl reloads
	var calls atomic.Int32
	release := make(chan struct{})
	refresh := func(ctx context.Context) error {
		if calls.Add(1) == 1 {
			<-release // the first round runs until the others wait
		}
		return errors.New("round done")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 11)
	wg.Add(1)
	go func() { defer wg.Done(); errs <- rl.do(context.Background(), refresh) }()
	for calls.Load() == 0 {
		runtime.Gosched()
	}
	const waiting = 10
	for range waiting {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- rl.do(context.Background(), refresh) }()
	}
	gone, leave := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { left <- rl.do(gone, refresh) }()
	for {
		rl.mu.Lock()
		n := 0
		if rl.next != nil {
			n = rl.next.waiting
		}
		rl.mu.Unlock()
		if n == waiting+1 {
			break
		}
		runtime.Gosched()
	}
	leave()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Errorf("a request that left: %v", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil || err.Error() != "round done" {
			t.Errorf("a request answered %v, want its round's error", err)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d refreshes for 1 request and %d that came during it, want 2", n, waiting+1)
	}
}
