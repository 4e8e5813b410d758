package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// TestServerTokens: a server given an encoding (render serve --tokens)
// counts the tokens of every render, the prompt's and each section's,
// unless the request names another (?tokens=); without one a render counts
// only when asked.
func TestServerTokens(t *testing.T) {
	t.Parallel()
	const note = `{"title": "Groceries", "body": "Milk and bread."}`
	for _, c := range []struct {
		serverTokens, query string
		counted             bool
	}{
		{"o200k_base", "", true},
		{"o200k_base", "?tokens=cl100k_base", true},
		{"", "", false},
		{"", "?tokens=cl100k_base", true},
	} {
		srv := server.New(fixture.Small(t))
		srv.Tokens = c.serverTokens
		ts := httptest.NewServer(srv)
		code, res := do(t, ts, "POST", "/v1/render/note"+c.query, note)
		ts.Close()
		tokens, _ := res["tokens"].(float64)
		sections, _ := res["sections"].([]any)
		if code != 200 || len(sections) == 0 {
			t.Fatalf("--tokens %q, %q: %d %v", c.serverTokens, c.query, code, res)
		}
		section, _ := sections[0].(map[string]any)["tokens"].(float64)
		if (tokens > 0) != c.counted || (section > 0) != c.counted {
			t.Errorf("--tokens %q, %q: tokens %v, the first section's %v; want them counted: %v", c.serverTokens, c.query, tokens, section, c.counted)
		}
	}
}
