package labels_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// TestTwoLabels: production and staging serve their commits' texts side
// by side, a request that names no label gets the default, and the
// listing says what each serves, in label order.
func TestTwoLabels(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
	r, reg := twoLabelsOfHistory(t, labels.Options{Now: (&clock{at}).now})
	if got := mustRender(t, reg, "production"); got != helloV1 {
		t.Errorf("production: %q", got)
	}
	if got := mustRender(t, reg, "staging"); got != helloMore {
		t.Errorf("staging: %q", got)
	}
	snap, err := reg.Lookup("", "")
	if err != nil || snap.Label != "production" || snap.Commit != r.RevParse("prod") {
		t.Errorf("default: %+v, %v", snap, err)
	}
	list := reg.List()
	if len(list) != 2 || list[0].Label != "production" || list[1].Label != "staging" || !list[0].Default || list[1].Default {
		t.Fatalf("list: %+v", list)
	}
	for _, s := range list {
		snap, _ := reg.Lookup(s.Label, "")
		if s.Status != labels.StateOK || s.Error != nil || s.Commit != snap.Commit || s.Library != snap.Hash ||
			s.Library != snap.Library.Provenance().Library || !s.LoadedAt.Equal(at) || !s.CheckedAt.Equal(at) {
			t.Errorf("%s: %+v", s.Label, s)
		}
	}
	if list[0].Library == list[1].Library {
		t.Error("two libraries of different files have one hash")
	}
	if _, err := json.Marshal(list); err != nil {
		t.Error(err)
	}
}

// TestBareRepository: a bare repository serves its library from the top
// of its tree.
func TestBareRepository(t *testing.T) {
	t.Parallel()
	r := history(t)
	bare := filepath.Join(t.TempDir(), "lib.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", r.Dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	reg := open(t, bare, twoLabels(), labels.Options{})
	if got := mustRender(t, reg, "staging"); got != helloMore {
		t.Errorf("staging: %q", got)
	}
}

// TestMoveTag: moving the tag and refreshing switches the label; a render
// that holds the old snapshot still renders the old text, and a request
// pinned to the old library gets a conflict.
func TestMoveTag(t *testing.T) {
	t.Parallel()
	var outcomes []labels.Outcome
	r, reg := twoLabelsOfHistory(t, labels.Options{OnRefresh: func(o labels.Outcome) { outcomes = append(outcomes, o) }})
	old, _ := reg.Lookup("production", "")

	outcomes = nil
	r.Git("tag", "-f", "prod", "main")
	refresh(t, reg)
	if got := mustRender(t, reg, "production"); got != helloMore {
		t.Errorf("production after the move: %q", got)
	}
	if got, err := render(old); err != nil || got != helloV1 {
		t.Errorf("the old snapshot: %q, %v", got, err)
	}
	if len(outcomes) != 2 || !outcomes[0].Changed || outcomes[0].Loaded || outcomes[1].Changed || outcomes[1].Attempted {
		t.Errorf("outcomes: %+v", outcomes)
	}
	now, _ := reg.Lookup("production", "")
	if now.Commit != r.RevParse("main") {
		t.Errorf("production serves %s", now.Commit)
	}

	_, err := reg.Lookup("production", old.Hash)
	if e := engine.AsError(err); !errors.Is(err, labels.ErrConflict) || e.Parameter != "library" ||
		!strings.Contains(e.Reason, now.Hash[:12]) || len(e.Hints) == 0 {
		t.Errorf("pinned to the old library: %v", err)
	}
	for _, pin := range []string{now.Hash, now.Hash[:12], strings.ToUpper(now.Hash[:16])} {
		if snap, err := reg.Lookup("", pin); err != nil || snap.Hash != now.Hash {
			t.Errorf("pinned to %s: %v", pin, err)
		}
	}
	// A pin too short to name one library, or not a hash, is the call's
	// mistake (400), not a label that moved (409).
	for _, pin := range []string{now.Hash[:8], "production", now.Hash + "0"} {
		_, err := reg.Lookup("production", pin)
		if e := engine.AsError(err); errors.Is(err, labels.ErrConflict) || e.Kind != engine.KindUsage || e.Parameter != "library" ||
			!strings.Contains(e.Reason, "12 hex digits or more") {
			t.Errorf("a pin %q: %v", pin, err)
		}
	}
	_, err = reg.Lookup("prodution", "")
	if e := engine.AsError(err); !errors.Is(err, labels.ErrUnknownLabel) || e.Parameter != "label" ||
		!strings.Contains(strings.Join(e.Hints, "\n"), `did you mean "production"?`) {
		t.Errorf("unknown label: %v", err)
	}
}

// TestSharing: two labels whose commits hold the same library files load
// it once and share it, and a label moved onto a library another serves
// loads nothing.
func TestSharing(t *testing.T) {
	t.Parallel()
	r := history(t)
	r.Git("tag", "-f", "prod", "main")
	var outcomes []labels.Outcome
	reg := open(t, r.Dir, twoLabels(), labels.Options{OnRefresh: func(o labels.Outcome) { outcomes = append(outcomes, o) }})
	a, _ := reg.Lookup("production", "")
	b, _ := reg.Lookup("staging", "")
	if reg.Loads() != 1 || a.Library != b.Library {
		t.Errorf("two labels at one commit: %d loads, one library: %t", reg.Loads(), a.Library == b.Library)
	}
	if len(outcomes) != 2 || !outcomes[0].Loaded || outcomes[1].Loaded {
		t.Errorf("outcomes: %+v", outcomes)
	}
	// A commit that changes no library file: main moves, the library is
	// the same one.
	r.CommitFiles("Document", map[string]string{"README.md": "notes\n"})
	refresh(t, reg)
	c, _ := reg.Lookup("staging", "")
	if reg.Loads() != 1 || c.Library != a.Library || c.Commit == a.Commit {
		t.Errorf("a commit of equal library files: %d loads, same library %t, commit %s", reg.Loads(), c.Library == a.Library, c.Commit)
	}
}

// TestBrokenCommit: a commit whose library does not load leaves its
// label on the last good version, says why with the file and line, is
// not read again while the ref names it, and a fix is served.
func TestBrokenCommit(t *testing.T) {
	t.Parallel()
	r, reg := twoLabelsOfHistory(t, labels.Options{})
	good, _ := reg.Lookup("staging", "")
	r.CommitFiles("Break memo", map[string]string{"templates/memo/memo.md.tmpl": "# Memo\n\nTo {{ .to }.\n"})
	broken := r.RevParse("main")

	outcomes, err := reg.Refresh(context.Background())
	if e := engine.AsError(err); e == nil || !strings.Contains(e.Reason, "label staging (refs/heads/main) stays on commit "+good.Commit[:12]) {
		t.Errorf("refresh error: %v", err)
	}
	if o := outcomes[1]; o.Err == nil || !o.Attempted || o.Changed || o.Served != good.Commit || o.Commit != broken {
		t.Errorf("outcome: %+v", o)
	}
	if got := mustRender(t, reg, "staging"); got != helloMore {
		t.Errorf("staging after a broken commit: %q", got)
	}
	if got := mustRender(t, reg, "production"); got != helloV1 {
		t.Errorf("production beside a broken staging: %q", got)
	}
	s := reg.List()[1]
	if s.Status != labels.StateFailing || s.Commit != good.Commit || s.FailingCommit != broken || s.Error == nil ||
		!regexp.MustCompile(`^templates/memo/memo\.md\.tmpl:3\b`).MatchString(s.Error.Position) ||
		!strings.HasPrefix(s.Error.Reason, "at refs/heads/main (commit "+broken[:12]+"): ") {
		t.Errorf("status: %+v, error %#v", s, s.Error)
	}
	if reg.List()[0].Status != labels.StateOK {
		t.Error("production fails beside staging")
	}

	loads := reg.Loads()
	outcomes, err = reg.Refresh(context.Background())
	if err == nil || outcomes[1].Attempted || reg.Loads() != loads {
		t.Errorf("the broken commit was read again: %+v, %d loads", outcomes[1], reg.Loads()-loads)
	}

	r.CommitFiles("Fix memo", map[string]string{"templates/memo/memo.md.tmpl": "# Memo\n\nTo {{ .to }}.\n"})
	refresh(t, reg)
	if s := reg.List()[1]; s.Status != labels.StateOK || s.Error != nil || s.FailingCommit != "" || s.Commit != r.RevParse("main") {
		t.Errorf("after the fix: %+v", s)
	}
}

// TestMissingRef: a ref that names no commit at start leaves its label
// failing, served as such (its lookups answer ErrFailing, naming the
// label), while the others serve; a ref deleted while served leaves its
// label on its last version; when no label can be served at start, New
// refuses, naming each, a commit whose library does not load included;
// a label failing since start serves once its ref names a good commit.
func TestMissingRef(t *testing.T) {
	t.Parallel()
	r := history(t)
	cfg := twoLabels()
	cfg.Labels[1].Ref = "refs/heads/nope"
	reg := open(t, r.Dir, cfg, labels.Options{})
	if got := mustRender(t, reg, "production"); got != helloV1 {
		t.Errorf("production beside a failing label: %q", got)
	}
	_, err := reg.Lookup("staging", "")
	if e := engine.AsError(err); e == nil || e.Kind != engine.KindUnavailable || !errors.Is(err, labels.ErrFailing) ||
		!strings.Contains(e.Reason, `label staging (refs/heads/nope) cannot be served: its ref names no commit: unknown ref "refs/heads/nope"`) {
		t.Errorf("a label whose ref names no commit at start: %v", err)
	}
	if s := reg.List()[1]; s.Status != labels.StateFailing || s.Commit != "" || s.Library != "" || s.Error == nil || reg.Serves("staging") || !reg.Serves("production") {
		t.Errorf("a label failing since start is listed: %+v", s)
	}
	r.Git("branch", "nope", "main")
	refresh(t, reg)
	if got := mustRender(t, reg, "staging"); got != helloMore {
		t.Errorf("staging once its ref names a commit: %q", got)
	}

	reg = open(t, r.Dir, twoLabels(), labels.Options{})
	before, _ := reg.Lookup("production", "")
	r.Git("tag", "-d", "prod")
	if _, err := reg.Refresh(context.Background()); err == nil {
		t.Error("a deleted tag refreshes without an error")
	}
	if s := reg.List()[0]; s.Status != labels.StateFailing || s.FailingCommit != "" || s.Commit != before.Commit ||
		!strings.Contains(s.Error.Reason, "unknown ref") {
		t.Errorf("a deleted tag: %+v", s)
	}
	if got := mustRender(t, reg, "production"); got != helloV1 {
		t.Errorf("production after its tag went: %q", got)
	}

	r.CommitFiles("Break note", map[string]string{"templates/note/prompt.yaml": "sections: [head, nothing]\n"})
	r.Git("tag", "bad")
	cfg = twoLabels()
	cfg.Labels[1].Ref = "bad"
	_, err = labels.New(context.Background(), r.Dir, cfg, labels.Options{})
	e := engine.AsError(err)
	if e == nil || !strings.HasPrefix(e.Reason, "label production (refs/tags/prod): unknown ref") || len(e.Also) != 1 ||
		!strings.HasPrefix(e.Also[0].Reason, "label staging (bad): at bad (commit ") ||
		!strings.HasPrefix(e.Also[0].Position, "templates/note/prompt.yaml") {
		t.Errorf("no label served at start: %v", err)
	}

	// A broken commit at start beside a good label: the error names the
	// commit and the library's position.
	r.Git("tag", "prod", "main~1")
	reg = open(t, r.Dir, cfg, labels.Options{})
	bad := r.RevParse("bad")
	_, err = reg.Lookup("staging", "")
	if e := engine.AsError(err); e == nil || !strings.Contains(e.Reason, "commit "+bad[:12]) || !strings.HasPrefix(e.Position, "templates/note/prompt.yaml") {
		t.Errorf("a label at a broken commit at start: %v", err)
	}
	if s := reg.List()[1]; s.Status != labels.StateFailing || s.FailingCommit != bad {
		t.Errorf("a label at a broken commit at start is listed: %+v", s)
	}
}

// TestHostileRepository: a repository whose configuration names a clean
// filter for every file, an fsmonitor and hooks is served without
// running any of them.
func TestHostileRepository(t *testing.T) {
	t.Parallel()
	r := testrepo.FilteredNoteLibrary(t)
	r.Git("tag", "prod")
	programs := r.Programs("reference-transaction")
	r.Write("templates/note/head.md.tmpl", "uncommitted\n") // what a clean filter would read

	cfg := labels.Config{Default: "production", Labels: []labels.Label{{Name: "production", Ref: "prod"}}}
	reg := open(t, r.Dir, cfg, labels.Options{})
	refresh(t, reg)
	if got := mustRender(t, reg, ""); got != helloV1 {
		t.Errorf("production: %q", got)
	}
	programs.CheckNoneRan("serving the library")
}

// TestTagCannotTakeABranchsLabel: production=staging follows the branch
// staging; a tag named staging pushed later does not take its place (git
// rev-parse would serve the tag): the refresh fails naming both refs, and
// the label keeps serving the branch's last commit. The same label given
// as refs/heads/staging serves the branch.
func TestTagCannotTakeABranchsLabel(t *testing.T) {
	t.Parallel()
	r := history(t)
	r.Git("branch", "staging", "prod")
	cfg := labels.Config{Default: "production", Labels: []labels.Label{{Name: "production", Ref: "staging"}}}
	reg := open(t, r.Dir, cfg, labels.Options{})
	r.Git("tag", "staging", "main")
	_, err := reg.Refresh(context.Background())
	if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, "ambiguous") ||
		!strings.Contains(e.Reason, "refs/heads/staging") || !strings.Contains(e.Reason, "refs/tags/staging") {
		t.Errorf("a tag beside the branch a label follows: %v", err)
	}
	if got := mustRender(t, reg, "production"); got != helloV1 {
		t.Errorf("production after a tag of its name was pushed: %q", got)
	}
	_, err = labels.New(context.Background(), r.Dir, cfg, labels.Options{})
	if e := engine.AsError(err); e == nil || !strings.Contains(e.Reason, "label production (staging): ref \"staging\" is ambiguous") {
		t.Errorf("an ambiguous label at start: %v", err)
	}
	cfg.Labels[0].Ref = "refs/heads/staging"
	if got := mustRender(t, open(t, r.Dir, cfg, labels.Options{}), "production"); got != helloV1 {
		t.Errorf("production at refs/heads/staging: %q", got)
	}
}
