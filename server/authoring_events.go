package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// DefaultMaxEventStreams bounds the event streams open at once
// (GET /v1/events): one per open preview page.
const DefaultMaxEventStreams = 32

// eventWriteTimeout bounds the writing of one event to a stream: a client
// that stops reading loses its stream, and its place, past it.
const eventWriteTimeout = 10 * time.Second

// eventKeepAlive is how often a quiet stream carries a comment, so that a
// client that went away without a word is found out.
const eventKeepAlive = 15 * time.Second

// events are the streams of GET /v1/events: each subscriber has a channel
// of one place, which Swap and ReloadFailed fill when it is empty. A
// subscriber that has not written the last event yet misses none: it
// writes the state as it is when it gets to it.
type events struct {
	mu   sync.Mutex
	done <-chan struct{} // nil until StreamEvents; closed when its context ends
	subs map[chan struct{}]struct{}
}

// libraryStatus is the data of an event of GET /v1/events, and says what
// the server serves now: the library's short hash and whether the working
// copy as it is now loaded.
type libraryStatus struct {
	Library       string        `json:"library"`
	OK            bool          `json:"ok"`
	Stale         bool          `json:"stale,omitempty"`
	StaleVariants []string      `json:"stale_variants,omitempty"`
	Error         *engine.Error `json:"error,omitempty"`
}

// StreamEvents turns on GET /v1/events until ctx ends: a stream of server-
// sent events, one each time Swap or ReloadFailed is called, for pages
// that show the library as it is edited (render serve --watch). When ctx
// ends every stream ends, so that a graceful shutdown does not wait for
// them. Without it GET /v1/events answers 404: the library never changes.
func (s *Server) StreamEvents(ctx context.Context) {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	s.events.done = ctx.Done()
}

// notify tells every stream that the state changed.
func (e *events) notify() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs {
		select {
		case ch <- struct{}{}:
		default: // it has an event to write already
		}
	}
}

// subscribe adds a stream, or says why not.
func (e *events) subscribe(max int) (chan struct{}, <-chan struct{}, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done == nil {
		return nil, nil, &engine.Error{Kind: engine.KindUsage, Reason: "this server does not watch its library: it never changes",
			Hints: []string{"start it with render serve --templates DIR --watch"}, Err: errNotFound}
	}
	select {
	case <-e.done:
		return nil, nil, &engine.Error{Kind: engine.KindUnavailable, Reason: "the server is shutting down"}
	default:
	}
	if len(e.subs) >= max {
		return nil, nil, &engine.Error{Kind: engine.KindUnavailable,
			Reason: fmt.Sprintf("%d event streams are open already, as many as the server keeps", max),
			Hints:  []string{"close a preview page you no longer use, or retry after the seconds in Retry-After"}}
	}
	if e.subs == nil {
		e.subs = map[chan struct{}]struct{}{}
	}
	ch := make(chan struct{}, 1)
	e.subs[ch] = struct{}{}
	return ch, e.done, nil
}

func (e *events) unsubscribe(ch chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.subs, ch)
}

// eventID names st in the id of its event.
func (st *state) eventID() string {
	return strconv.FormatUint(st.gen, 10) + "-" + st.lib.Provenance().Short
}

// status says what st serves.
func (st *state) status() libraryStatus {
	out := libraryStatus{Library: st.lib.Provenance().Short, OK: true, StaleVariants: st.staleVariants()}
	switch {
	case st.failed != nil:
		out.OK, out.Stale, out.Error = false, true, wireError(st.failed)
	case st.lib.Err() != nil:
		out.OK, out.Error = false, wireError(st.lib.Err())
	}
	return out
}

// streamEvents answers GET /v1/events: an event "library" with the state
// at once (unless Last-Event-ID names it: the client has seen it), then one
// each time the state changes, until the client leaves or the server stops.
// Each event's id names the state: its generation and its library's short
// hash, so that a client of a server that restarted is not taken to have
// seen a state because its number came round again.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) {
	max := s.MaxEventStreams
	if max <= 0 {
		max = DefaultMaxEventStreams
	}
	// The state of the label the request names (?label=), the server's
	// without labels: a stream follows its label as it moves.
	current := func() *state {
		st, _, err := s.stateFor(r)
		if err != nil {
			return nil
		}
		return st
	}
	first, snap, err := s.stateFor(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ch, done, err := s.events.subscribe(max)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer s.events.unsubscribe(ch)
	labelHeaders(w, snap)
	out := startStream(w)
	if !out.write("retry: 1000\n\n") {
		return
	}
	sent := r.Header.Get("Last-Event-ID")
	if sent != first.eventID() {
		if !out.event(first) {
			return
		}
		sent = first.eventID()
	}
	keepAlive := time.NewTicker(eventKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		case <-ch:
			st := current()
			if st == nil || s.Labels != nil && st.eventID() == sent {
				continue // another label moved, or this one serves nothing now
			}
			if !out.event(st) {
				return
			}
			sent = st.eventID()
		case <-keepAlive.C:
			if !out.write(": still here\n\n") {
				return
			}
		}
	}
}

// eventStream writes the events of one stream.
type eventStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startStream answers 200 with a stream of events. The stream outlives
// the server's read and write timeouts: it reads nothing more, and each
// write has a deadline of its own.
func startStream(w http.ResponseWriter) eventStream {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return eventStream{w, rc}
}

// write sends text at once, and reports whether the client took it in time.
func (e eventStream) write(text string) bool {
	e.rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	if _, err := fmt.Fprint(e.w, text); err != nil {
		return false
	}
	return e.rc.Flush() == nil
}

// event sends the event of st.
func (e eventStream) event(st *state) bool {
	data, _ := json.Marshal(st.status())
	return e.write(fmt.Sprintf("id: %s\nevent: library\ndata: %s\n\n", st.eventID(), data))
}

// streaming reports whether GET /v1/events is on (StreamEvents): the
// document lists it only then.
func (s *Server) streaming() bool {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	return s.events.done != nil
}

func eventsOp() openapi.Operation {
	return openapi.Operation{Summary: "Server-sent events: a library swapped in, or a reload that failed",
		Description: "A text/event-stream that render serve --templates DIR --watch keeps Open: an event named library at once, " +
			"then one each time the server swaps in the working copy or fails to reload it, each with an id naming the state " +
			"and a LibraryStatus as its JSON data (components.schemas.LibraryStatus). A client that reconnects with Last-Event-ID " +
			"gets no event for the state it has seen. Listed only when the server watches its library; at most --max-event-streams are open at once. " +
			"With labels (render serve --repo), ?label= picks the label whose library the stream follows.",
		Mentions: []openapi.Schema{openapi.TypeOf[libraryStatus]()},
		Replies: []openapi.Reply{{Code: 200, Description: "The stream, until the client leaves or the server stops.", Media: "text/event-stream",
			Body: openapi.Literal(map[string]any{"type": "string", "description": "Events \"id: N\\nevent: library\\ndata: <LibraryStatus>\\n\\n\" and keep-alive comments."})}},
		Shared: []int{503}, Labelled: true}
}
