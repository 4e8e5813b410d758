package labels_test

import (
	"context"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
)

// TestLabelMovedToALargeTemplate: a label whose branch gains a template
// over the file limit stays on its last good version, and its outcome
// names the file, by the size git lists, before the blob is read.
func TestLabelMovedToALargeTemplate(t *testing.T) {
	r, reg := twoLabelsOfHistory(t, labels.Options{Engine: []engine.Option{engine.WithLimits(engine.Limits{FileBytes: 64 << 10})}})
	good, err := reg.Lookup("staging", "")
	if err != nil {
		t.Fatal(err)
	}
	r.CommitFiles("A large template", map[string]string{"templates/note/big.md.tmpl": strings.Repeat("{{ .title }}\n", 10000)})
	outcomes, err := reg.Refresh(context.Background())
	if err == nil || !strings.Contains(err.Error(), "templates/note/big.md.tmpl") || !strings.Contains(err.Error(), "a library file may hold") {
		t.Errorf("refresh: %v", err)
	}
	for _, o := range outcomes {
		if o.Label == "staging" && (o.Err == nil || o.Served != good.Commit) {
			t.Errorf("staging: %+v", o)
		}
	}
	if snap, err := reg.Lookup("staging", ""); err != nil || snap.Commit != good.Commit {
		t.Errorf("staging serves %s (%v), want its last good version %s", snap.Commit, err, good.Commit)
	} else if text, err := render(snap); err != nil || text != helloMore {
		t.Errorf("staging renders %q (%v)", text, err)
	}
}
