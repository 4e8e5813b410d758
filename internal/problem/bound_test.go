package problem

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBoundedErrorsSayLittle: an error whose texts hold megabytes of input,
// with hundreds of further problems, says at most 16 KiB, as text and as
// JSON; one within the bounds is left as it is.
func TestBoundedErrorsSayLittle(t *testing.T) {
	huge := strings.Repeat("x", 5_000_000)
	e := &Error{Kind: KindInput, Reason: "unknown field " + huge, Field: "/" + huge, Position: "in.json:1:2"}
	for range 20 {
		e.Hint("a hint %s", huge)
	}
	for range 300 {
		e.Also = append(e.Also, &Error{Kind: KindInput, Reason: "also " + huge[:3000], Field: "/a"})
	}
	text := e.Error()
	body, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	for what, n := range map[string]int{"text": len(text), "JSON": len(body)} {
		if n > ErrorBytes+2<<10 { // the texts, and the punctuation around them
			t.Errorf("the %s is %d bytes", what, n)
		}
	}
	b := e.Bounded()
	if len(b.Hints) != 4 || b.Hints[3] != "(17 more hints)" { // three of 1 KiB, within hintBytes
		t.Errorf("hints: %d, last %q", len(b.Hints), b.Hints[len(b.Hints)-1])
	}
	short := &Error{Kind: KindInput, Reason: "r"}
	for i := range 10 {
		short.Hint("hint %d", i)
	}
	if h := short.Bounded().Hints; len(h) != maxHints+1 || h[maxHints] != "(2 more hints)" {
		t.Errorf("ten short hints: %q", h)
	}
	if last := b.Also[len(b.Also)-1]; !strings.HasPrefix(last.Reason, "and ") || !strings.HasSuffix(last.Reason, " more problems") {
		t.Errorf("the last of also: %q", last.Reason)
	}
	if len(e.Reason) != len("unknown field ")+len(huge) {
		t.Error("Bounded changed the error it was given")
	}
	small := &Error{Kind: KindInput, Reason: "r", Also: []*Error{{Kind: KindInput, Reason: "s"}}}
	if small.Bounded() != small {
		t.Error("an error within the bounds was copied")
	}
	var back map[string]any
	if err := json.Unmarshal(body, &back); err != nil || back["kind"] != "input" {
		t.Errorf("the JSON: %v %v", err, back["kind"])
	}
}
