package labels

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// Outcome is what one refresh did for one label.
type Outcome struct {
	Label string
	Ref   string
	// Commit is the commit the ref names now, "" when it names none.
	Commit string
	// Served and Library are the commit and library hash the label
	// serves after the refresh: Commit's, or its last good version's.
	Served, Library string
	// Changed: the label switched to Commit in this refresh.
	Changed bool
	// Attempted: Commit's library was read in this refresh. A commit
	// that failed before is not read again while the ref names it, so a
	// poller counts each failure once.
	Attempted bool
	// Loaded: a library was loaded for the label, rather than shared
	// with another label (or version) holding the same files.
	Loaded bool
	// Parsed is how many variants that load parsed from their files: those
	// equal in a library served already are not.
	Parsed int64
	// Err is why Commit is not served, nil when it is.
	Err error
}

// Refresh reads every label's ref again and switches each label whose
// commit changed to that commit's library, once loaded and checked in
// full; a label whose new commit cannot be served stays on its last good
// version, and its status says why. Refreshes are taken one at a time
// (the poller, SIGHUP and POST /v1/reload may ask at once): a caller
// waits for its turn, or for ctx. The error is that of the labels that
// are failing, each named, or ctx's; the outcomes are in label order.
func (r *Registry) Refresh(ctx context.Context) ([]Outcome, error) {
	select {
	case r.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, cancelled(ctx)
	}
	defer func() { <-r.turn }()

	next := maps.Clone(*r.table.Load())
	outcomes := make([]Outcome, 0, len(r.cfg.Labels))
	for _, l := range r.cfg.Labels {
		if ctx.Err() != nil {
			break // what is done is published; the rest keep their versions
		}
		e, o := r.refreshLabel(ctx, l, next[l.Name])
		if ctx.Err() != nil {
			break // cut short: not the label's failure
		}
		if e != nil {
			next[l.Name] = e
		}
		outcomes = append(outcomes, o)
	}
	r.table.Store(&next)
	served := map[string]bool{}
	libs := make([]*engine.Library, 0, len(next))
	for _, e := range next {
		if e.snap.Library == nil {
			continue // failing since start
		}
		served[e.key] = true
		libs = append(libs, e.snap.Library)
	}
	r.cache.Forget(func(key string) bool { return served[key] })
	r.share.Retain(libs...) // the variants of libraries no label serves go with them
	if r.onRefresh != nil {
		for _, o := range outcomes {
			r.onRefresh(o)
		}
	}
	if ctx.Err() != nil {
		return outcomes, cancelled(ctx)
	}
	return outcomes, failing(outcomes)
}

// refreshLabel brings one label up to its ref: the entry to publish (nil
// to keep none, a label that could not be served at start) and what was
// done.
func (r *Registry) refreshLabel(ctx context.Context, l Label, old *entry) (*entry, Outcome) {
	now := r.now()
	o := Outcome{Label: l.Name, Ref: l.Ref}
	fail := func(commit string, err error) (*entry, Outcome) {
		o.Commit, o.Err = commit, err
		if old == nil { // failing since start: served as failing
			return &entry{snap: Snapshot{Label: l.Name, Ref: l.Ref}, checkedAt: now, err: engine.AsError(err), failing: commit}, o
		}
		e := *old
		e.checkedAt, e.err, e.failing = now, engine.AsError(err), commit
		o.Served, o.Library = e.snap.Commit, e.snap.Hash
		return &e, o
	}
	keep := func() (*entry, Outcome) {
		e := *old
		e.checkedAt = now
		o.Served, o.Library = e.snap.Commit, e.snap.Hash
		if e.err != nil && e.failing == o.Commit && o.Commit != "" {
			o.Err = e.err // the same commit failing as before: not read again
		} else {
			e.err, e.failing = nil, ""
		}
		return &e, o
	}

	commit, err := r.repo.Resolve(ctx, l.Ref)
	if err != nil {
		return fail("", err)
	}
	o.Commit = commit
	if old != nil && (old.snap.Commit == commit || old.err != nil && old.failing == commit && retryless(old.err)) {
		return keep()
	}
	o.Attempted = true
	tree, err := r.repo.Tree(ctx, l.Ref)
	if err != nil {
		return fail(commit, err)
	}
	o.Commit = tree.Commit // the ref may have moved since Resolve: this is what is read
	before, parsed := r.cache.Loads(), r.share.Parsed()
	lib, err := r.cache.Library(ctx, tree)
	o.Loaded, o.Parsed = r.cache.Loads() > before, r.share.Parsed()-parsed // exact: loads happen in a refresh, one at a time
	if err != nil {
		return fail(tree.Commit, err)
	}
	snap := Snapshot{Label: l.Name, Ref: l.Ref, Commit: tree.Commit, Hash: lib.Provenance().Library, LoadedAt: now, Library: lib}
	o.Served, o.Library, o.Changed = snap.Commit, snap.Hash, old == nil || old.snap.Commit != snap.Commit
	return &entry{snap: snap, key: tree.Key(), checkedAt: now}, o
}

// retryless reports whether a failure at a commit stays a failure while
// the ref names that commit: the library's own faults do, git or the
// machine failing, or a refresh cut short, may not.
func retryless(err *engine.Error) bool {
	return err.Kind != engine.KindInternal && err.Kind != engine.KindCancelled && err.Kind != engine.KindUnavailable
}

// failing is the error of the labels an outcome list says are failing,
// the first's with the others in Also, or nil.
func failing(outcomes []Outcome) error {
	return outcomesError(outcomes, func(o Outcome, e *engine.Error) {
		if o.Served == "" {
			e.Reason = fmt.Sprintf("label %s (%s) serves nothing: %s", o.Label, o.Ref, e.Reason)
		} else {
			e.Reason = fmt.Sprintf("label %s (%s) stays on commit %s: %s", o.Label, o.Ref, short(o.Served), e.Reason)
		}
	})
}

// outcomesError is the errors of the outcomes that failed as one error:
// the first's, with the others in Also, each a copy that name rewrites to
// say which label it is; nil if none failed.
func outcomesError(outcomes []Outcome, name func(Outcome, *engine.Error)) error {
	var all []*engine.Error
	for _, o := range outcomes {
		if o.Err == nil {
			continue
		}
		e := *engine.AsError(o.Err)
		name(o, &e)
		all = append(all, &e)
	}
	if len(all) == 0 {
		return nil
	}
	first := *all[0]
	first.Also = append(append([]*engine.Error(nil), first.Also...), all[1:]...)
	return &first
}

// cancelled is the error of a refresh its caller ended.
func cancelled(ctx context.Context) error {
	return &engine.Error{Kind: engine.KindCancelled, Reason: "the refresh was cancelled: the labels not reached keep their versions",
		Err: context.Cause(ctx)}
}

// Poll refreshes every interval until ctx ends: the server starts it in
// a goroutine of its own. Outcomes are told to Options.OnRefresh; a
// zero or negative interval polls never, and Poll returns at once.
func (r *Registry) Poll(ctx context.Context, every time.Duration) {
	if every <= 0 {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.Refresh(ctx)
		}
	}
}
