package labels_test

import (
	"testing"

	"github.com/promptsmith/promptsmith/internal/labels"
)

// TestEqualVariantsParseOnce: production and staging are at commits that
// differ in the note variant only, so memo is parsed once for both; a
// library no label serves any more leaves the share with its variants,
// and the one moved back to parses its own variant again, not memo.
func TestEqualVariantsParseOnce(t *testing.T) {
	t.Parallel()
	var parsed []int64
	r, reg := twoLabelsOfHistory(t, labels.Options{OnRefresh: func(o labels.Outcome) { parsed = append(parsed, o.Parsed) }})
	if reg.Loads() != 2 || reg.VariantsParsed() != 3 {
		t.Errorf("two labels differing in note: %d libraries loaded, %d variants parsed, want 2 and 3", reg.Loads(), reg.VariantsParsed())
	}
	if len(parsed) != 2 || parsed[0] != 2 || parsed[1] != 1 {
		t.Errorf("the outcomes' variants parsed: %v, want [2 1] (production's note and memo, staging's note)", parsed)
	}
	a, _ := reg.Lookup("production", "")
	b, _ := reg.Lookup("staging", "")
	if memoText(t, a) != memoText(t, b) || a.Hash == b.Hash {
		t.Errorf("memo from two libraries (%s, %s): %q, %q", a.Hash, b.Hash, memoText(t, a), memoText(t, b))
	}

	r.Git("tag", "-f", "prod", "main") // production's library is staging's now
	refresh(t, reg)
	if reg.Loads() != 2 || reg.VariantsParsed() != 3 {
		t.Errorf("a label moved onto another's library: %d loaded, %d parsed", reg.Loads(), reg.VariantsParsed())
	}
	r.Git("tag", "-f", "prod", "main~1") // back: its library was dropped, memo was not
	refresh(t, reg)
	if reg.Loads() != 3 || reg.VariantsParsed() != 4 {
		t.Errorf("a label moved back: %d loaded, %d parsed, want 3 and 4", reg.Loads(), reg.VariantsParsed())
	}
	if got := mustRender(t, reg, "production"); got != helloV1 {
		t.Errorf("production after moving back renders %q", got)
	}
}

// memoText renders the memo variant's team example from a snapshot.
func memoText(t *testing.T, snap labels.Snapshot) string {
	t.Helper()
	text, err := renderExample(snap, "memo", "team")
	if err != nil {
		t.Fatal(err)
	}
	return text
}
