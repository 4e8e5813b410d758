package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server"
)

// clockFS is a library of one variant whose prompt is a stable intro, a
// breakpoint, then the time.
var clockFS = fstest.MapFS{
	"schemas/clock.schema.json": {Data: []byte(`{"type": "object", "required": ["name", "now"], "additionalProperties": false,
  "properties": {"name": {"type": "string", "description": "N."}, "now": {"type": "string", "description": "T."}}}`)},
	"templates/clock/prompt.yaml":   {Data: []byte("sections: [intro, clock]\ncache:\n  volatile: [/now]\n  breakpoints: [intro]\n")},
	"templates/clock/intro.md.tmpl": {Data: []byte("You are {{ .name }}.\n")},
	"templates/clock/clock.md.tmpl": {Data: []byte("It is {{ .now }}.\n")},
}

func clockServer(t *testing.T) *httptest.Server {
	t.Helper()
	lib, err := engine.Load(clockFS)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(lib))
	t.Cleanup(ts.Close)
	return ts
}

func post(t *testing.T, ts *httptest.Server, path, body string) (int, string) {
	t.Helper()
	resp, data := call(t, ts, "POST", path, body, "", "Content-Type", "application/json")
	return resp.StatusCode, string(data)
}

// TestRenderFormats: ?format=anthropic answers the system blocks split at
// the breakpoint, openai the message and its cache key, and another
// format is refused naming the parameter.
func TestRenderFormats(t *testing.T) {
	ts := clockServer(t)
	in := `{"name": "Ada", "now": "09:00"}`
	code, body := post(t, ts, "/v1/render/clock?format=anthropic", in)
	var a engine.AnthropicRequest
	if err := json.Unmarshal([]byte(body), &a); err != nil || code != http.StatusOK || len(a.System) != 2 ||
		a.System[0].Text != "You are Ada.\n" || a.System[0].CacheControl == nil || a.System[0].CacheControl.Type != "ephemeral" ||
		a.System[1].Text != "\nIt is 09:00.\n" || a.System[1].CacheControl != nil {
		t.Fatalf("anthropic: %d %s", code, body)
	}
	code, body = post(t, ts, "/v1/render/clock?format=openai", in)
	var o engine.OpenAIRequest
	if err := json.Unmarshal([]byte(body), &o); err != nil || code != http.StatusOK || len(o.Messages) != 1 ||
		o.Messages[0].Content != "You are Ada.\n\nIt is 09:00.\n" || o.PromptCacheKey == "" {
		t.Fatalf("openai: %d %s", code, body)
	}
	if code, body = post(t, ts, "/v1/render/clock?format=xml", in); code != http.StatusBadRequest || !strings.Contains(body, `"parameter": "format"`) {
		t.Errorf("format=xml: %d %s", code, body)
	}
}

// TestCachePrefixChanges: a render whose prefix differs from the last of
// its variant, label and cache_key is counted; one whose volatile part
// alone changed is not, nor is the first of a key, nor a render without
// a cache_key.
func TestCachePrefixChanges(t *testing.T) {
	ts := clockServer(t)
	for _, c := range []struct{ query, body string }{
		{"?cache_key=a", `{"name": "Ada", "now": "09:00"}`},
		{"?cache_key=a", `{"name": "Ada", "now": "10:00"}`},               // the prefix is the same
		{"?cache_key=b", `{"name": "Bob", "now": "10:00"}`},               // another key: first of its own
		{"?cache_key=a", `{"name": "Eve", "now": "10:00"}`},               // changed
		{"?cache_key=a&format=openai", `{"name": "Ada", "now": "11:00"}`}, // changed back
		// Without a cache_key nobody is named: renders for different
		// agents are not one cache's misses, and are not counted.
		{"", `{"name": "Ada", "now": "11:00"}`},
		{"", `{"name": "Bob", "now": "11:00"}`},
		{"?format=anthropic", `{"name": "Eve", "now": "11:00"}`},
	} {
		if code, body := post(t, ts, "/v1/render/clock"+c.query, c.body); code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.query, code, body)
		}
	}
	_, data := call(t, ts, "GET", "/metrics", "", "")
	if want := `promptsmith_cache_prefix_changes_total{label="",variant="clock"} 2`; !strings.Contains(string(data), want) {
		t.Errorf("no %s in\n%s", want, data)
	}
}
