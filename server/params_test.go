package server_test

// The query parameters of the API: the token counts a server gives by
// default, and the parameters a route does not take.

import (
	"fmt"
	"net/http/httptest"
	"strings"
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

// TestUnknownQueryParameter: a query parameter the route does not take is
// refused (400) naming it and the one meant, not ignored: a misspelt
// max_token would answer a prompt never fitted. The label parameters pass
// on a server without labels, which ignores them.
func TestUnknownQueryParameter(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(server.New(fixture.Small(t)))
	defer ts.Close()
	const note = `{"title": "Groceries", "body": "Milk and bread."}`
	for _, c := range []struct {
		method, path string
		code         int
		parameter    string
		hint         string
	}{
		{"POST", "/v1/render/note?max_token=100&tokens=o200k_base", 400, "max_token", `did you mean "max_tokens"?`},
		{"POST", "/v1/render/note?fromat=openai", 400, "fromat", `did you mean "format"?`},
		{"GET", "/v1/variants?verbose=1", 400, "verbose", "/v1/variants takes label, library"},
		{"GET", "/v1/version?x=1", 400, "x", "/v1/version takes"},
		{"POST", "/v1/render/note?format=openai&tokens=o200k_base&max_tokens=100&cache_key=a&label=main", 200, "", ""},
		{"GET", "/v1/variants?label=main&library=0123456789ab", 200, "", ""},
	} {
		code, res := do(t, ts, c.method, c.path, note)
		e, _ := res["error"].(map[string]any)
		hints := fmt.Sprint(e["hints"])
		if code != c.code || c.code == 400 && (e["parameter"] != c.parameter || !strings.Contains(hints, c.hint)) {
			t.Errorf("%s %s: %d %v; want %d naming %q with %q", c.method, c.path, code, res, c.code, c.parameter, c.hint)
		}
	}
}

// TestNewWithoutLibrary: a server made before its library is known (New
// of nil, as an embedder may) does not panic.
func TestNewWithoutLibrary(t *testing.T) {
	t.Parallel()
	if server.New(nil) == nil {
		t.Fatal("New(nil) is nil")
	}
}
