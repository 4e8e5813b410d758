package lsp

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"

	"go.lsp.dev/protocol"
)

// recheck asks the checker to publish the variants' diagnostics again.
func (s *Server) recheck(variants ...string) {
	if len(variants) == 0 {
		return
	}
	s.mu.Lock()
	for _, v := range variants {
		s.pending[v] = true
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// checker computes and publishes diagnostics in the background, so that
// edits, completions and hovers never wait for them: each round checks
// the variants edited since the last, on the newest text.
func (s *Server) checker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		s.mu.Lock()
		variants := make([]string, 0, len(s.pending))
		for v := range s.pending {
			variants = append(variants, v)
		}
		clear(s.pending)
		s.mu.Unlock()
		slices.Sort(variants)
		sn := s.snapshot()
		if sn == nil {
			continue
		}
		for _, v := range variants {
			if ctx.Err() != nil {
				return
			}
			if found, ok := s.safeCheck(ctx, sn, v); ok {
				s.publish(ctx, sn, v, found)
			}
		}
	}
}

// safeCheck is check that survives a panic in what it calls (the engine
// on text no test has seen): the panic is logged, the variant's
// diagnostics stay as they were, and the server goes on.
func (s *Server) safeCheck(ctx context.Context, sn *snapshot, variant string) (found map[string][]protocol.Diagnostic, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while checking", "variant", variant, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			ok = false
		}
	}()
	return s.check(ctx, sn, variant), true
}
