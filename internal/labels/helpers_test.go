package labels_test

import (
	"context"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// The note variant's basic example as each commit of history renders it.
const (
	helloV1   = testrepo.HelloV1
	helloMore = testrepo.HelloMore
)

// history is testrepo.NoteHistory: production serves helloV1, staging
// helloMore.
func history(t *testing.T) *testrepo.Repo { return testrepo.NoteHistory(t) }

// twoLabelsOfHistory opens twoLabels of a new history with opts and
// returns the history and the registry.
func twoLabelsOfHistory(t *testing.T, opts labels.Options) (*testrepo.Repo, *labels.Registry) {
	t.Helper()
	r := history(t)
	return r, open(t, r.Dir, twoLabels(), opts)
}

// twoLabels is production at the prod tag, staging at main, production
// the default.
func twoLabels() labels.Config {
	return labels.Config{Default: "production", Labels: []labels.Label{
		{Name: "production", Ref: "refs/tags/prod"}, {Name: "staging", Ref: "refs/heads/main"}}}
}

// clock is a fixed time that moves only when told, for LoadedAt and
// CheckedAt.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// open makes a registry of dir, failing the test when it cannot.
func open(t *testing.T, dir string, cfg labels.Config, opts labels.Options) *labels.Registry {
	t.Helper()
	reg, err := labels.New(context.Background(), dir, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// render renders the note variant's basic example from a snapshot.
func render(snap labels.Snapshot) (string, error) { return renderExample(snap, "note", "basic") }

// renderExample is the text of a variant's example, rendered from a
// snapshot.
func renderExample(snap labels.Snapshot, variant, example string) (string, error) {
	v, err := snap.Library.Variant(variant)
	if err != nil {
		return "", err
	}
	in, err := v.Example(example)
	if err != nil {
		return "", err
	}
	res, err := v.Render(context.Background(), in)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// mustRender is render for a label looked up now.
func mustRender(t *testing.T, reg *labels.Registry, label string) string {
	t.Helper()
	snap, err := reg.Lookup(label, "")
	if err != nil {
		t.Fatal(err)
	}
	text, err := render(snap)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// refresh refreshes, failing the test on a failing label.
func refresh(t *testing.T, reg *labels.Registry) []labels.Outcome {
	t.Helper()
	out, err := reg.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}
