package labels

import (
	"fmt"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// Snapshot is the version a label served when it was looked up. It is a
// value, and its library is immutable: a render holds on to it and
// finishes on that version whatever a refresh does meanwhile.
type Snapshot struct {
	Label    string          // the label's name, the default's when none was asked for
	Ref      string          // the ref the label follows
	Commit   string          // the commit whose library this is (full hash)
	Hash     string          // the library's hash, its Provenance().Library
	LoadedAt time.Time       // when the label began serving this version
	Library  *engine.Library // loaded and checked in full
}

// State says whether a label serves what its ref names now.
type State string

const (
	// StateOK: the label serves the commit its ref names.
	StateOK State = "ok"
	// StateFailing: the ref names a commit (or nothing) the label cannot
	// serve; it serves its last good version, and Status.Error says why.
	StateFailing State = "failing"
)

// Status is one label as GET /v1/libraries lists it.
type Status struct {
	Label    string    `json:"label"`
	Ref      string    `json:"ref"`
	Default  bool      `json:"default"`
	Commit   string    `json:"commit"`             // the commit served
	Library  string    `json:"library"`            // the hash of the library served
	LoadedAt time.Time `json:"loaded_at,omitzero"` // when the label began serving it; absent for a label that serves nothing
	// CheckedAt is when the ref was last read: a poller that stopped
	// shows here.
	CheckedAt time.Time `json:"checked_at"`
	// Status is ok or failing; a label failing since start serves
	// nothing (its commit, library and loaded_at are empty) and its
	// renders answer 503 naming the failing commit and the error.
	Status State `json:"status"`
	// FailingCommit is the commit the ref names that could not be
	// served, "" when the ref names no commit.
	FailingCommit string        `json:"failing_commit,omitempty"`
	Error         *engine.Error `json:"error,omitempty"`
}

// entry is one label's state in a published table. It is never changed
// once published: a refresh makes a new one.
type entry struct {
	snap      Snapshot
	key       string // gitlib key of the served library's files
	checkedAt time.Time
	err       *engine.Error // the last attempt's, nil when the label is ok
	failing   string        // the commit err is about, "" for a ref that names none
}

// failingError is the error of a lookup of a label that has served
// nothing since start: unavailable, naming the commit and why.
func (e *entry) failingError() error {
	at := "its ref names no commit"
	if e.failing != "" {
		at = "commit " + short(e.failing)
	}
	reason := fmt.Sprintf("label %s (%s) cannot be served: %s: %s", e.snap.Label, e.snap.Ref, at, e.err.Reason)
	out := &engine.Error{Kind: engine.KindUnavailable, Parameter: "label", Position: e.err.Position, Reason: reason,
		Err: fmt.Errorf("%w: %w", ErrFailing, e.err),
		Hints: []string{"the label has served nothing since the server started; it serves once its ref names a commit whose library loads " +
			"(the refs are read again every --poll-interval, on SIGHUP and on POST /v1/reload)", "GET /v1/libraries says what each label serves"}}
	return out
}

// status is the entry as List gives it.
func (e *entry) status(def string) Status {
	s := Status{Label: e.snap.Label, Ref: e.snap.Ref, Default: e.snap.Label == def, Commit: e.snap.Commit,
		Library: e.snap.Hash, LoadedAt: e.snap.LoadedAt, CheckedAt: e.checkedAt, Status: StateOK}
	if e.err != nil {
		s.Status, s.Error, s.FailingCommit = StateFailing, e.err, e.failing
	}
	return s
}
