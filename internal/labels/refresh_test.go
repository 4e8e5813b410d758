package labels_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/labels"
)

// TestRefreshUnderLoad: while the tag moves back and forth and refreshes
// run, two at a time, renders from snapshots never fail, and each renders
// the text of the library its snapshot names.
func TestRefreshUnderLoad(t *testing.T) {
	t.Parallel()
	r, reg := twoLabelsOfHistory(t, labels.Options{})
	want := map[string]string{}
	for _, label := range []string{"production", "staging"} {
		snap, _ := reg.Lookup(label, "")
		want[snap.Hash], _ = render(snap)
	}

	stop := make(chan struct{})
	var renders atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			// A render takes some 20µs: one a millisecond from each
			// renderer keeps renders running through every refresh
			// without four renderers spinning on both cores for as long
			// as the refreshes' git processes take.
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				snap, err := reg.Lookup("production", "")
				if err != nil {
					t.Error(err)
					return
				}
				got, err := render(snap)
				if err != nil || got != want[snap.Hash] {
					t.Errorf("a render during refreshes: %q, %v", got, err)
					return
				}
				renders.Add(1)
			}
		})
	}
	targets := []string{"main", "main~1"}
	for i := range 10 {
		r.Git("tag", "-f", "prod", targets[i%2])
		var inner sync.WaitGroup
		for range 2 {
			inner.Go(func() {
				if _, err := reg.Refresh(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		inner.Wait()
	}
	close(stop)
	wg.Wait()
	if renders.Load() == 0 {
		t.Error("no render ran during the refreshes")
	}
	// Two at start; moving onto staging's library loads nothing, and
	// moving back loads the old one again (5 times), since a library no
	// label serves is not kept.
	if reg.Loads() != 7 {
		t.Errorf("10 moves between two libraries: %d loads, want 7", reg.Loads())
	}
	if snap, _ := reg.Lookup("production", ""); snap.Commit != r.RevParse("main~1") {
		t.Errorf("production ends at %s", snap.Commit)
	}
}

// TestRefreshWaitsForItsTurn: a refresh that cannot get its turn before
// its context ends says so and changes nothing.
func TestRefreshWaitsForItsTurn(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	entered := make(chan struct{}, 1)
	var holding atomic.Bool
	_, reg := twoLabelsOfHistory(t, labels.Options{OnRefresh: func(labels.Outcome) {
		if holding.Load() {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-hold
		}
	}})
	holding.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg.Refresh(context.Background())
	}()
	<-entered // the first refresh holds its turn
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := reg.Refresh(ctx); err == nil {
		t.Error("a cancelled refresh waiting for its turn returned no error")
	}
	holding.Store(false)
	close(hold)
	<-done
}

// TestPoll: the poller switches a label after its tag moves, and stops
// with its context. The wait is bounded only so that a broken poller
// fails rather than hangs.
func TestPoll(t *testing.T) {
	t.Parallel()
	r, reg := twoLabelsOfHistory(t, labels.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg.Poll(ctx, time.Millisecond)
	}()
	r.Git("tag", "-f", "prod", "main")
	main := r.RevParse("main")
	deadline := time.Now().Add(time.Minute)
	for {
		if snap, _ := reg.Lookup("production", ""); snap.Commit == main {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the poller did not switch production within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the poller did not stop with its context")
	}
	reg.Poll(context.Background(), 0) // polling off: returns at once
}
