package labels

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitlib"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// Options configure a Registry. The zero value is usable.
type Options struct {
	// Git is the git program, git from PATH when empty.
	Git string
	// Engine are the options every library is loaded with (limits, a
	// logger); engine.Strict is added, since a label never serves a
	// library one variant of which does not load.
	Engine []engine.Option
	// Now is the clock of LoadedAt and CheckedAt, time.Now when nil.
	Now func() time.Time
	// OnRefresh, when set, is told each label's outcome of every refresh,
	// the first (in New) included, in label order, once the refresh is
	// published: for the server's metrics and log. It runs while the
	// refresh holds its turn, so it must not call Refresh.
	OnRefresh func(Outcome)
}

// Registry serves a library per label from one repository. Lookups and
// List are lock-free and safe for concurrent use with each other and
// with Refresh, which takes its turn.
type Registry struct {
	repo      *gitlib.Repo
	cfg       Config
	cache     *gitlib.Cache
	share     *engine.VariantShare // every library's variants, so that equal ones load once
	now       func() time.Time
	onRefresh func(Outcome)
	turn      chan struct{} // one refresh at a time, waited for with a context
	table     atomic.Pointer[map[string]*entry]
}

// New opens the repository at dir (a working copy, whose library is at
// its folder in the tree, or a bare repository) and loads every label's
// library. A label that cannot be served at start, its ref naming no
// commit or its commit's library not loading, is served as failing: its
// lookups answer ErrFailing, naming the commit and the error, List says
// so, and a later refresh serves it once its ref names a commit that
// loads. The others serve meanwhile, so that one broken canary commit
// does not take production down with it when the process restarts. New
// refuses to start only when no label can be served at all; the error
// names each label.
func New(ctx context.Context, dir string, cfg Config, opts Options) (*Registry, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	repo, err := gitlib.Open(ctx, opts.Git, dir)
	if err != nil {
		return nil, err
	}
	share := &engine.VariantShare{}
	r := &Registry{repo: repo, cfg: cfg, now: opts.Now, onRefresh: opts.OnRefresh, turn: make(chan struct{}, 1), share: share,
		cache: gitlib.NewCache(append(append([]engine.Option(nil), opts.Engine...), engine.Strict(), engine.ShareVariants(share))...)}
	if r.now == nil {
		r.now = time.Now
	}
	empty := map[string]*entry{}
	r.table.Store(&empty)
	outcomes, err := r.Refresh(ctx)
	if ctx.Err() != nil {
		return nil, err
	}
	for _, o := range outcomes {
		if o.Err == nil {
			return r, nil
		}
	}
	return nil, startError(outcomes)
}

// startError is the error of a registry none of whose labels can be
// served at start: the first label's, with the others in Also, each
// naming its label.
func startError(outcomes []Outcome) error {
	return outcomesError(outcomes, func(o Outcome, e *engine.Error) {
		e.Reason = fmt.Sprintf("label %s (%s): %s", o.Label, o.Ref, e.Reason)
		e.Hints = append(append([]string(nil), e.Hints...), "no label can be served: fix a ref or the library at its commit (a label that cannot be served while others can is served as failing)")
	})
}

// Config is the configuration the registry serves.
func (r *Registry) Config() Config { return r.cfg }

// Default is the name of the label a request that names none gets.
func (r *Registry) Default() string { return r.cfg.Default }

// Lookup returns what a label serves now: the default label's when label
// is empty. With library not empty (a full library hash, or a prefix of
// one of 12 digits or more, as X-Promptsmith-Library gives it), the
// label must serve that library: a pinned request fails with ErrConflict
// rather than be rendered by another version.
func (r *Registry) Lookup(label, library string) (Snapshot, error) {
	name := label
	if name == "" {
		name = r.cfg.Default
	}
	e := (*r.table.Load())[name]
	if e == nil {
		err := &engine.Error{Kind: engine.KindUsage, Parameter: "label", Err: ErrUnknownLabel,
			Reason: fmt.Sprintf("unknown label %q", label)}
		names := r.cfg.Names()
		if near := phrase.Closest(label, names); near != "" {
			err.Hint("did you mean %q?", near)
		}
		return Snapshot{}, err.Hint("the labels are: %s (GET /v1/libraries lists them with what each serves)", strings.Join(names, ", "))
	}
	if e.snap.Library == nil {
		return Snapshot{}, e.failingError()
	}
	if library != "" && !pinForm.MatchString(library) {
		return Snapshot{}, &engine.Error{Kind: engine.KindUsage, Parameter: "library",
			Reason: fmt.Sprintf("library %q is not a library's hash or a prefix of it of 12 hex digits or more", library),
			Hints:  []string{"pin the hash X-Promptsmith-Library-Hash gives (or its first 12 digits or more); GET /v1/libraries says what each label serves"}}
	}
	if library != "" && !samePin(e.snap.Hash, library) {
		return Snapshot{}, &engine.Error{Kind: engine.KindUsage, Parameter: "library", Err: ErrConflict,
			Reason: fmt.Sprintf("label %s serves library %s (commit %s), not %s", name, short(e.snap.Hash), short(e.snap.Commit), library),
			Hints: []string{"the label has moved since the library was pinned: pin the library it serves now, or leave library out to render with it",
				"GET /v1/libraries says what each label serves"}}
	}
	return e.snap, nil
}

// Initial is the snapshot a server describes its unlabelled endpoints
// with at start: the default label's, or, while that serves nothing, the
// first label's that serves (New refuses a registry none of whose labels
// serve).
func (r *Registry) Initial() Snapshot {
	table := *r.table.Load()
	if e := table[r.cfg.Default]; e != nil && e.snap.Library != nil {
		return e.snap
	}
	for _, l := range r.cfg.Labels {
		if e := table[l.Name]; e != nil && e.snap.Library != nil {
			return e.snap
		}
	}
	return Snapshot{}
}

// Serves reports whether a label serves a library now: false for an
// unknown label and for one that has failed since start (ErrFailing).
func (r *Registry) Serves(label string) bool {
	e := (*r.table.Load())[label]
	return e != nil && e.snap.Library != nil
}

// samePin reports whether pin names the library hash: the hash itself,
// or a prefix of it long enough not to name another by chance.
// pinForm is what ?library= takes: a library's hash, or a prefix of it
// long enough to name one library (12 hex digits or more).
var pinForm = regexp.MustCompile(`^[0-9a-fA-F]{12,64}$`)

func samePin(hash, pin string) bool {
	pin = strings.ToLower(pin)
	return pin == hash || len(pin) >= 12 && strings.HasPrefix(hash, pin)
}

// List is every label, sorted by name, with what it serves and its
// status.
func (r *Registry) List() []Status {
	table := *r.table.Load()
	out := make([]Status, 0, len(r.cfg.Labels))
	for _, l := range r.cfg.Labels {
		if e := table[l.Name]; e != nil {
			out = append(out, e.status(r.cfg.Default))
		}
	}
	return out
}

// Loads is how many libraries the registry has loaded: fewer than the
// labels times their changes when labels share their files.
func (r *Registry) Loads() int64 { return r.cache.Loads() }

// VariantsParsed is how many variants the registry has loaded from their
// files: a library loaded for a commit that differs from one served in a
// single variant loads that variant alone.
func (r *Registry) VariantsParsed() int64 { return r.share.Parsed() }

// short is a hash as the project shows it, its first 12 digits.
func short(hash string) string { return hash[:min(len(hash), 12)] }
