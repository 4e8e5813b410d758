package rules

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
)

// TestRulesAreLinear: unique and references over 32,768 tools and as many
// overrides finish, and find the one bad value at the end. Compared pair by
// pair, they would make some 10^9 comparisons of canonical encodings, each
// hashing its values: far past the generous deadline.
func TestRulesAreLinear(t *testing.T) {
	const n = 32_768
	build := func(lastOverride string) []byte {
		var b strings.Builder
		b.WriteString(`{"parent": {"tools": [`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id": "tool-%d", "name": "Tool %d"}`, i, i)
		}
		b.WriteString(`]}, "tools": {"overrides": [`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			id := fmt.Sprintf("tool-%d", n-1-i)
			if i == n-1 {
				id = lastOverride
			}
			fmt.Fprintf(&b, `{"id": %q, "status": "revoked"}`, id)
		}
		b.WriteString(`]}}`)
		return []byte(b.String())
	}
	r := manifest.Rules{
		Unique:     []string{"/parent/tools/*/id", "/tools/overrides/*/id"},
		References: []manifest.Reference{{Field: "/tools/overrides/*/id", In: "/parent/tools/*/id"}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, c := range []struct{ last, want string }{
		{"tool-0", ""},
		{"tool-5", "/tools/overrides/32767/id: \"tool-5\" repeats the value of /tools/overrides/32762/id"},
		{"tool-x", "/tools/overrides/32767/id: \"tool-x\" is not one of the values at /parent/tools/*/id"},
	} {
		done := make(chan error, 1)
		go func() {
			d, err := input.Decode(input.Input{Name: "in", Data: build(c.last)}, nil)
			if err != nil {
				done <- err
				return
			}
			defer d.Release()
			done <- (&Checker{Rules: r}).Check(d)
		}()
		select {
		case err := <-done:
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
				t.Errorf("last override %s: got %.300v, want %q", c.last, err, c.want)
			}
		case <-ctx.Done():
			t.Fatalf("the rules over %d tools and overrides did not finish", n)
		}
	}
}
