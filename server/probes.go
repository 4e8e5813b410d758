package server

import (
	"context"
	"net/http"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// The probes a load balancer or an orchestrator asks, outside the Host
// guard and the token: what they answer tells nothing about the library.
//
//	/livez   the process serves requests: restart it when this fails
//	/readyz  it can render and record now: send it traffic only while this is 200
//	/healthz the same as /readyz, kept for the probes configured before /readyz
//
// /readyz is 503 once the server drains (Drain, from SIGTERM on, before the
// listener closes), while no library is loaded, and while the audit store
// does not answer within ReadyTimeout, so that replicas sharing a database
// that went down are taken out of rotation together and come back by
// themselves when it answers again.

// DefaultReadyTimeout bounds the wait of a readiness probe for the audit
// store's answer: under the 1 s Kubernetes waits for a probe by default
// (timeoutSeconds), so that /readyz answers 503 in time, rather than not
// at all, while a database recovers or hangs.
const DefaultReadyTimeout = 800 * time.Millisecond

// isProbe reports whether path is one of the probes.
func isProbe(path string) bool {
	return path == "/livez" || path == "/readyz" || path == "/healthz"
}

// probe is a probe's answer: ok, or why not ready.
type probe struct {
	Status string        `json:"status"`
	Error  *engine.Error `json:"error,omitempty"`
}

// Drain marks the server as going away: /readyz answers 503 from now on,
// and every answer closes its connection, so that a load balancer stops
// sending requests while those in flight finish. Serve calls it when its
// context ends, before it closes the listener.
func (s *Server) Drain() { s.draining.Store(true) }

// livez answers whether the process serves: it always does when it answers.
func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, probe{Status: "ok"})
}

// readyz answers whether the server can take renders now (ready).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.ready(r.Context()); err != nil {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, probe{Status: "unavailable", Error: wireError(err)})
		return
	}
	writeJSON(w, http.StatusOK, probe{Status: "ok"})
}

// ready is nil when the server is not draining, has a library and its
// audit store, if any, answers within ReadyTimeout.
func (s *Server) ready(ctx context.Context) error {
	if s.draining.Load() {
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "the server is shutting down"}
	}
	if s.lib() == nil {
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "no library is loaded"}
	}
	if err := s.defaultReady(); err != nil {
		return err
	}
	if s.Audit == nil {
		return nil
	}
	timeout := s.ReadyTimeout
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	// One ping at a time, whose answer every probe waiting meanwhile
	// takes; it runs to its own timeout whichever probe's client leaves.
	// Each probe waits at most the timeout from its own arrival, even for
	// a store that ignores its context and hangs.
	answer := s.pings.DoChan("audit", func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		return nil, s.Audit.Ping(ctx)
	})
	wait := time.NewTimer(timeout)
	defer wait.Stop()
	select {
	case <-wait.C:
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "the audit store did not answer within " + timeout.String() + ", so no render can be recorded"}
	case r := <-answer:
		if r.Err != nil {
			return &engine.Error{Kind: engine.KindUnavailable, Reason: "the audit store does not answer, so no render can be recorded", Err: r.Err}
		}
		return nil
	case <-ctx.Done():
		return &engine.Error{Kind: engine.KindUnavailable, Reason: "the probe ended before the audit store answered", Err: ctx.Err()}
	}
}

func livezOp() openapi.Operation {
	return openapi.Operation{Summary: "Whether the process serves; needs no token", Open: true,
		Replies: []openapi.Reply{openapi.JSONReply(200, "The process serves.", openapi.TypeOf[probe]())}}
}

func readyzOp() openapi.Operation {
	return openapi.Operation{Summary: "Whether the server can render and record now; needs no token",
		Description: "503 while the server drains (from SIGTERM on), while no library is loaded and while the audit store does not answer.", Open: true,
		Replies: []openapi.Reply{openapi.JSONReply(200, "Ready.", openapi.TypeOf[probe]()), openapi.JSONReply(503, "Not ready: error says why.", openapi.TypeOf[probe]())}}
}

func healthzOp() openapi.Operation {
	op := readyzOp()
	op.Summary = "The same as /readyz, kept for existing probes; needs no token"
	return op
}
