package variants_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// FuzzParentRoundTrip: whatever the parent prompt, a delegation either
// refuses it with a structured input error or embeds it so that extraction
// gives back exactly the same bytes, with the document's headings intact.
// go test runs the seeds; go test -fuzz FuzzParentRoundTrip explores.
func FuzzParentRoundTrip(f *testing.F) {
	for _, seed := range []string{
		"# PM\n", "no newline", "\r\n\r\n", "```\nopen fence", startMarker + "\nx\n" + endMarker,
		startMarker, "a " + endMarker, "<!-- PARENT PROMPT START -->\r\n\r\n<!-- PARENT PROMPT END -->\r\n",
		"# Delegation Overview\n## Parent Prompt\n", "\x00\xff\xfe", "{{ .x }}", "<!--", "-->\n",
	} {
		f.Add(seed)
	}
	lib, err := libraryOnce()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, parent string) {
		in := fixture.Delegation()
		fixture.Set(in, "parent/prompt", parent)
		data, _ := json.Marshal(in)
		res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "fuzz", Data: data})
		if err != nil {
			if e := engine.AsError(err); e.Kind != engine.KindInput || e.Field == "" {
				t.Fatalf("parent %q: not a structured input error: %#v", parent, e)
			}
			return
		}
		// encoding/json replaces invalid UTF-8 with U+FFFD: compare with what was sent.
		var sent struct{ Parent struct{ Prompt string } }
		json.Unmarshal(data, &sent)
		got, err := parentMarkers.Extract(res.Text, 1)
		if err != nil || got != sent.Parent.Prompt {
			t.Fatalf("parent %q: extracted %q, %v", sent.Parent.Prompt, got, err)
		}
		if !res.OK() {
			t.Fatalf("parent %q: checks failed: %+v", parent, res.Checks)
		}
	})
}
