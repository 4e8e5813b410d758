package verbatim

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/problem"
)

var markers = Markers{Start: "<!-- PARENT PROMPT START -->", End: "<!-- PARENT PROMPT END -->"}

// extractByLevels is Extract as it was: the top-level regions of the text,
// then of the one region, and so on, each level read again. The one-pass
// Extract must agree with it on every text.
func extractByLevels(m Markers, text string, depth int) (string, error) {
	cur := text
	for level := 1; level <= depth; level++ {
		regions, err := m.TopRegions(cur)
		if err != nil {
			return "", &problem.Error{Kind: problem.KindInput, Level: level, Reason: "unbalanced markers: " + err.Error()}
		}
		if len(regions) != 1 {
			return "", &problem.Error{Kind: problem.KindInput, Level: level, Reason: "regions"}
		}
		cur = cur[regions[0].Start:regions[0].End]
	}
	return cur, nil
}

// randomPrompt nests marker lines, text lines, blank lines and CRLF line
// ends at random, balanced or not.
func randomPrompt(rng *rand.Rand) string {
	lines := []string{markers.Start, markers.End, markers.Start + "\r", markers.End + "\r", "", "text", "# Heading", "x " + markers.Start}
	var b strings.Builder
	for range rng.IntN(30) {
		b.WriteString(lines[rng.IntN(len(lines))])
		if rng.IntN(8) > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestExtractAgreesWithLevelByLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		text := randomPrompt(rng)
		checkAgainstLevels(t, text)
	}
	checkAgainstLevels(t, nested(5, "root\n"))
}

func checkAgainstLevels(t *testing.T, text string) {
	t.Helper()
	chain, lerr := markers.Levels(text)
	for depth := 1; depth <= 6; depth++ {
		got, err := markers.Extract(text, depth)
		want, werr := extractByLevels(markers, text, depth)
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("%q depth %d: got %q, %v; level by level %q, %v", text, depth, got, err, want, werr)
		}
		if err != nil {
			var e, w *problem.Error
			errors.As(err, &e)
			errors.As(werr, &w)
			if e.Level != w.Level || (strings.HasPrefix(w.Reason, "unbalanced") && e.Reason != w.Reason) {
				t.Fatalf("%q depth %d: error %q at level %d, level by level %q at %d", text, depth, e.Reason, e.Level, w.Reason, w.Level)
			}
		}
		switch {
		case lerr != nil:
			if err == nil {
				t.Fatalf("%q: Levels refused what Extract accepts: %v", text, lerr)
			}
		case depth <= len(chain):
			if r := chain[depth-1]; text[r.Start:r.End] != got || err != nil {
				t.Fatalf("%q: level %d of Levels is %q, Extract gives %q, %v", text, depth, text[r.Start:r.End], got, err)
			}
		case err == nil:
			t.Fatalf("%q: Levels ends at %d levels, Extract gives level %d", text, len(chain), depth)
		}
	}
}

// nested wraps root in depth levels of delegation, as a chain of subagent
// prompts would.
func nested(depth int, root string) string {
	var b strings.Builder
	for range depth {
		b.WriteString("# Delegation\n" + markers.Start + "\n")
	}
	b.WriteString(root)
	for range depth {
		b.WriteString("\n" + markers.End + "\n## Details\n")
	}
	return b.String()
}

// TestDeepExtractIsLinear: extracting the innermost of 50,000 nested
// levels (2.9 MB) reads the text once. Read again at each level, it is
// some 70 GB of scanning, far past the generous deadline.
func TestDeepExtractIsLinear(t *testing.T) {
	const depth = 50_000
	text := nested(depth, "the root prompt")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type result struct {
		text   string
		levels []Region
		err    error
	}
	done := make(chan result, 1)
	go func() {
		got, err := markers.Extract(text, depth)
		levels, _ := markers.Levels(text)
		done <- result{got, levels, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.text != "the root prompt" {
			t.Fatalf("got %q, %v", r.text, r.err)
		}
		if len(r.levels) != depth {
			t.Fatalf("%d levels, want %d", len(r.levels), depth)
		}
		inner := r.levels[depth-1]
		if text[inner.Start:inner.End] != "the root prompt" {
			t.Errorf("innermost level %q", text[inner.Start:inner.End])
		}
	case <-ctx.Done():
		t.Fatalf("extracting level %d of %d bytes did not end", depth, len(text))
	}
	_, err := markers.Extract(text, depth+1)
	var e *problem.Error
	if !errors.As(err, &e) || e.Level != depth+1 || !strings.Contains(e.Hints[0], "50000 level(s) deep") {
		t.Errorf("past the root: %v", err)
	}
}

func TestLevels(t *testing.T) {
	text := nested(2, "root")
	chain, err := markers.Levels(text)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range chain {
		got = append(got, text[r.Start:r.End])
	}
	want := []string{"# Delegation\n" + markers.Start + "\nroot\n" + markers.End + "\n## Details\n", "root"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("levels %q, want %q", got, want)
	}
	if chain, err := markers.Levels("no markers"); err != nil || len(chain) != 0 {
		t.Errorf("a root prompt: %v %v", chain, err)
	}
	two := markers.Start + "\na\n" + markers.End + "\n" + markers.Start + "\nb\n" + markers.End + "\n"
	if chain, err := markers.Levels(two); err != nil || len(chain) != 0 {
		t.Errorf("two regions at the top: %v %v", chain, err)
	}
	if _, err := markers.Levels(markers.End + "\n"); err == nil || !strings.Contains(err.Error(), "line 1: end marker") {
		t.Errorf("unbalanced: %v", err)
	}
}

// FuzzExtract: Extract and Levels agree with extraction level by level on
// any text.
func FuzzExtract(f *testing.F) {
	f.Add(nested(3, "root"))
	f.Add(markers.Start + "\r\n\r\n" + markers.End)
	f.Add(markers.End + "\n" + markers.Start)
	f.Fuzz(func(t *testing.T, text string) {
		checkAgainstLevels(t, text)
	})
}
