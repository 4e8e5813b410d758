package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRepeatedParametersRefused: a request that names its label, its
// library or any parameter twice, by the query or by a header the server
// reads once, is refused with 400 naming what it repeats, rather than
// served by the first value while a proxy reading the last sees another
// label. A query that does not parse is refused likewise; a parameter
// given once keeps working.
func TestRepeatedParametersRefused(t *testing.T) {
	t.Parallel()
	_, srv, ts := serveLabels(t, "s3cret-token")
	doc := fetchDoc(t, ts, "s3cret-token")
	staging := srv.Labels.List()[1]

	for _, c := range []struct {
		method, path string
		headers      [][2]string
		parameter    string
	}{
		{"POST", "/v1/render/note?label=production&label=staging", nil, "label"},
		{"POST", "/v1/render/note?label=staging&label=staging", nil, "label"},
		{"POST", "/v1/render/note", [][2]string{{"X-Promptsmith-Label", "production"}, {"X-Promptsmith-Label", "staging"}}, "X-Promptsmith-Label"},
		{"POST", "/v1/render/note?label=staging&library=" + staging.Library + "&library=" + staging.Library[:12], nil, "library"},
		{"GET", "/v1/variants?depth=1&depth=2", nil, "depth"},
		{"POST", "/v1/extract?depth=1&depth=2", nil, "depth"},
		{"POST", "/v1/render/note?max_tokens=10&tokens=a&max_tokens=20", nil, "max_tokens"},
		{"POST", "/v1/render/note", [][2]string{{"Content-Type", "application/json"}, {"Content-Type", "text/plain"}}, "Content-Type"},
		{"GET", "/v1/variants", [][2]string{{"Authorization", "Bearer nope"}}, "Authorization"},
		{"POST", "/v1/render/note?label=%zz", nil, ""},
		{"POST", "/v1/render/note?label=staging;label=production", nil, ""},
	} {
		req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(noteInput))
		req.Header.Set("Authorization", "Bearer s3cret-token")
		for _, h := range c.headers {
			req.Header.Add(h[0], h[1])
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error struct{ Parameter, Reason string }
		}
		json.Unmarshal(body, &e)
		if resp.StatusCode != 400 || e.Error.Parameter != c.parameter || e.Error.Reason == "" {
			t.Errorf("%s %s %v: %d %.300s, want 400 about %q", c.method, c.path, c.headers, resp.StatusCode, body, c.parameter)
			continue
		}
		if c.parameter != "" && !strings.Contains(e.Error.Reason, "times") {
			t.Errorf("%s %s: %q does not say it is repeated", c.method, c.path, e.Error.Reason)
		}
		doc.check(t, c.method, strings.SplitN(c.path, "?", 2)[0], resp, body)
	}
	resp, body := call(t, ts, "POST", "/v1/render/note?label=staging", noteInput, "s3cret-token", "X-Promptsmith-Label", "staging")
	if resp.StatusCode != 200 || promptOf(t, body) != helloMore {
		t.Errorf("one label by query and header: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := call(t, ts, "GET", "/livez?x=1&x=2", "", ""); resp.StatusCode != 200 {
		t.Errorf("a probe with a repeated parameter: %d", resp.StatusCode)
	}
}
