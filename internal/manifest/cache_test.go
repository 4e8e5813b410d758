package manifest_test

import (
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// TestCacheParse: cache: is read with the line of each entry, and what
// cannot work is refused at its line, with the section meant.
func TestCacheParse(t *testing.T) {
	m, err := manifest.Parse(file, []byte("sections: [head, body, tail]\ncache:\n  volatile: [/clock]\n  breakpoints:\n    - head\n    - body\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Cache == nil || m.Cache.Line != 2 || m.Cache.BreakpointLine(1) != 6 || m.Cache.VolatileLine(0) != 3 {
		t.Fatalf("cache = %+v", m.Cache)
	}
	if got := m.BreakpointIndexes(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("BreakpointIndexes = %v", got)
	}
	for _, c := range []struct{ name, src, pos, reason, hint string }{
		{"unknown section", "sections: [head, body]\ncache:\n  breakpoints:\n    - head\n    - bdy\n", file + ":5", `no section "bdy"`, `did you mean "body"?`},
		{"five", "sections: [a, b, c, d, e, f]\ncache:\n  breakpoints: [a, b, c, d, e]\n", file + ":3", "at most 4", "keep the 4"},
		{"order", "sections: [a, b]\ncache:\n  breakpoints:\n    - b\n    - a\n", file + ":5", "not after b", "order of sections"},
		{"pointer", "sections: [a]\ncache:\n  volatile:\n    - now\n", file + ":4", "not a JSON pointer", "starting with /"},
		{"twice", "sections: [a]\ncache:\n  volatile: [/a, /a]\n", file + ":3", "listed twice", ""},
		{"unknown key", "sections: [a]\ncache:\n  volatle: [/a]\n", file + ":3", `unknown field "volatle"`, `did you mean "volatile"?`},
	} {
		_, err := manifest.Parse(file, []byte(c.src))
		e := problem.As(err)
		if e == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if e.Position != c.pos || !strings.Contains(e.Reason, c.reason) || !strings.Contains(strings.Join(e.Hints, "\n"), c.hint) {
			t.Errorf("%s: %s %q %q", c.name, e.Position, e.Reason, e.Hints)
		}
	}
}
