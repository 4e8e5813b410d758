package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// Labels: a server started with a label registry (render serve --repo)
// serves a library per label. A request picks its label with ?label= or
// the X-Promptsmith-Label header and may pin the library with ?library=;
// it keeps the snapshot it looked up to its answer, so a refresh that
// moves the label meanwhile changes nothing for it. Without a registry
// the server serves its one library, as it always has.

// Header names of the label that answered and of its commit.
const (
	labelHeader  = openapi.LabelHeader
	commitHeader = openapi.CommitHeader
)

// stateFor is what a request is answered from: with labels, a state of
// the library its label serves now, and the label's snapshot; without,
// the server's state and a zero snapshot.
func (s *Server) stateFor(r *http.Request) (*state, labels.Snapshot, error) {
	if s.Labels == nil {
		return s.state.Load(), labels.Snapshot{}, nil
	}
	name, err := requestLabel(r)
	if err != nil {
		return nil, labels.Snapshot{}, err
	}
	snap, err := s.Labels.Lookup(name, r.URL.Query().Get("library"))
	if err != nil {
		return nil, labels.Snapshot{}, err
	}
	return s.labelState(snap), snap, nil
}

// stateForAnswer is stateFor for a handler that answers from the state:
// it names the label and commit in the answer's headers, or writes the
// error and gives nil.
func (s *Server) stateForAnswer(w http.ResponseWriter, r *http.Request) *state {
	st, snap, err := s.stateFor(r)
	if err != nil {
		s.writeError(w, r, err)
		return nil
	}
	labelHeaders(w, snap)
	return st
}

// labelState is the state of the library a label serves: one per label,
// made anew when the label moves, so that what is built once for a
// library (the OpenAPI document, lint's findings) is built once for each
// label's, and no more are held than there are labels.
func (s *Server) labelState(snap labels.Snapshot) *state {
	if v, ok := s.labelStates.Load(snap.Label); ok && v.(*state).lib == snap.Library {
		return v.(*state)
	}
	st := &state{lib: snap.Library}
	if snap.Library == s.lib() {
		st = s.state.Load() // the default label's: its events' generations
	}
	s.labelStates.Store(snap.Label, st)
	return st
}

// labelOf is the label a request is counted under in the render
// metrics: the one it names when it is a configured label, the default
// when it names none, "" without labels or for a name that is no label
// (a caller's name must not make a metric series).
func (s *Server) labelOf(r *http.Request) string {
	if s.Labels == nil {
		return ""
	}
	name, err := requestLabel(r)
	if err != nil {
		return ""
	}
	if name == "" {
		return s.Labels.Default()
	}
	for _, l := range s.Labels.Config().Labels {
		if l.Name == name {
			return name
		}
	}
	return ""
}

// defaultReady is nil when the default label serves a library: a server
// whose default label has served nothing since start is not ready, since
// the requests that name no label would fail.
func (s *Server) defaultReady() error {
	if s.Labels == nil || s.Labels.Serves(s.Labels.Default()) {
		return nil
	}
	_, err := s.Labels.Lookup("", "")
	return &engine.Error{Kind: engine.KindUnavailable, Reason: "the default label " + s.Labels.Default() + " serves nothing", Err: err,
		Hints: []string{"GET /v1/libraries says why; the other labels serve meanwhile"}}
}

// requestLabel is the label a request names, "" for the default: by
// ?label= or X-Promptsmith-Label, which must agree when both are given.
func requestLabel(r *http.Request) (string, error) {
	q, h := r.URL.Query().Get("label"), r.Header.Get(labelHeader)
	if q != "" && h != "" && q != h {
		return "", &engine.Error{Kind: engine.KindUsage, Parameter: "label",
			Reason: fmt.Sprintf("?label=%s and %s: %s name different labels", q, labelHeader, h),
			Hints:  []string{"name the label once, by the query or by the header"}}
	}
	if q != "" {
		return q, nil
	}
	return h, nil
}

// labelHeaders name the label and commit of an answer; nothing without
// labels.
func labelHeaders(w http.ResponseWriter, snap labels.Snapshot) {
	if snap.Label == "" {
		return
	}
	w.Header().Set(labelHeader, snap.Label)
	w.Header().Set(commitHeader, snap.Commit)
}

// hasLabels says whether the server serves labels: the document lists
// their endpoints only then.
func (s *Server) hasLabels() bool { return s.Labels != nil }

// noLabels is the answer of a labels endpoint on a server without them.
func noLabels(r *http.Request) error {
	return &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path, Reason: "this server serves no labels",
		Hints: []string{"start render serve with --repo PATH and --label NAME=REF"}, Err: errNotFound}
}

// libraries answers GET /v1/libraries: every label with what it serves.
func (s *Server) libraries(w http.ResponseWriter, r *http.Request) {
	if s.Labels == nil {
		s.writeError(w, r, noLabels(r))
		return
	}
	writeJSON(w, http.StatusOK, s.Labels.List())
}

// reload answers POST /v1/reload: the refs read again now, as the poller
// and SIGHUP do, then the labels as GET /v1/libraries lists them. A label
// that fails is listed failing: the answer is 200 all the same, since it
// is still served from its last good version.
func (s *Server) reload(w http.ResponseWriter, r *http.Request) {
	if s.Labels == nil {
		s.writeError(w, r, noLabels(r))
		return
	}
	if err := s.Reload(r.Context()); err != nil && r.Context().Err() != nil {
		s.writeError(w, r, answerError(r.Context(), err))
		return
	}
	writeJSON(w, http.StatusOK, s.Labels.List())
}

// Reload reads every label's ref again (render serve's SIGHUP and POST
// /v1/reload); the error names the labels failing, each still served
// from its last good version. Without labels it does nothing.
func (s *Server) Reload(ctx context.Context) error {
	if s.Labels == nil {
		return nil
	}
	return s.reloads.do(ctx, func(ctx context.Context) error {
		_, err := s.Labels.Refresh(ctx)
		return err
	})
}

// LabelRefreshed is the registry's OnRefresh (labels.Options): it counts
// and logs what a refresh did for a label and, when the default label
// moved, makes its library the one the unlabelled endpoints describe (the
// OpenAPI document, /v1/version). A failure is told once, however many
// polls find it again: once per commit that fails, or per error of a ref
// that names none.
func (s *Server) LabelRefreshed(o labels.Outcome) {
	s.metrics.labelInfo(o)
	if s.Labels != nil {
		s.metrics.library.DeletePartialMatch(prometheus.Labels{"label": ""}) // the library New was given is a label's
		if snap, err := s.Labels.Lookup(o.Label, ""); err == nil {
			s.metrics.serving(o.Label, snap.Library)
		} else if errors.Is(err, labels.ErrFailing) {
			s.metrics.serving(o.Label, nil)
		}
	}
	failure := ""
	if o.Err != nil {
		failure = "commit " + o.Commit
		if o.Commit == "" {
			failure = "no commit: " + o.Err.Error()
		}
	}
	prev, _ := s.labelFailures.Swap(o.Label, failure)
	switch {
	case o.Err != nil && prev != failure:
		s.metrics.labelFailures.WithLabelValues(o.Label).Inc()
		if o.Served == "" {
			s.Logger.Error("label serves nothing: its renders answer 503 until its ref names a commit that loads", "label", o.Label, "ref", o.Ref,
				"commit", o.Commit, "error", o.Err.Error())
		} else {
			s.Logger.Error("label stays on its last good version", "label", o.Label, "ref", o.Ref, "commit", o.Commit,
				"served", o.Served, "error", o.Err.Error())
		}
	case o.Changed:
		s.metrics.labelSwitches.WithLabelValues(o.Label).Inc()
		s.Logger.Info("label serves a new commit", "label", o.Label, "ref", o.Ref, "commit", o.Served, "library", o.Library)
	}
	if o.Changed {
		s.events.notify() // a stream of ?label= follows its label
	}
	if !o.Changed || s.Labels == nil || o.Label != s.Labels.Default() {
		return
	}
	if snap, err := s.Labels.Lookup(o.Label, ""); err == nil && snap.Library != s.lib() {
		s.Swap(snap.Library)
	}
}

func librariesOp() openapi.Operation {
	return openapi.Operation{Summary: "The labels served, each with its commit, library, when it was loaded and its status",
		Description: "A label whose ref names a commit that cannot be served is listed failing, with the error and the commit, and is served from its last good version; " +
			"one that has served nothing since the server started (commit, library and loaded_at empty) answers 503 until its ref names a commit that loads.",
		Replies: []openapi.Reply{openapi.JSONReply(200, "The labels, sorted by name.", openapi.TypeOf[[]labels.Status]())},
		Shared:  []int{404}}
}

func reloadOp() openapi.Operation {
	return openapi.Operation{Summary: "Read every label's ref again now, and list the labels",
		Description: "What the poller (render serve --poll-interval) and SIGHUP do: a label whose ref moved to a commit whose library loads serves it from now on; " +
			"renders in flight finish on the version they started with. A label that fails stays on its last good version and is listed failing.",
		Replies: []openapi.Reply{openapi.JSONReply(200, "The labels after the refresh, sorted by name.", openapi.TypeOf[[]labels.Status]())},
		Shared:  []int{404, 503}}
}

// labelSource looks the named variant up in what the request's label
// serves, and names the label and commit in the answer's headers.
func (s *Server) labelSource(w http.ResponseWriter, r *http.Request, name string) (source, error) {
	st, snap, err := s.stateFor(r)
	if err != nil {
		return source{}, err
	}
	labelHeaders(w, snap)
	src, err := st.source(name)
	src.label, src.commit = snap.Label, snap.Commit
	return src, err
}
