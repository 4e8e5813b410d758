package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/labels"
)

// TestLabelFailingAtStart: a label whose ref names a commit whose library
// does not load at start is served as failing (503 naming the commit and
// the error; GET /v1/libraries, the metrics say so) while the others
// serve; /readyz is ready while the default label serves, and not while
// it is the one failing. ?label= picks the library of lint, the version
// and the OpenAPI document too.
func TestLabelFailingAtStart(t *testing.T) {
	t.Parallel()
	r := history(t)
	r.CommitFiles("Break note", map[string]string{"templates/note/prompt.yaml": "sections: [head, nothing]\n"})
	r.Git("tag", "canary")
	bad := r.RevParse("canary")
	cfg := labels.Config{Default: "production", Labels: []labels.Label{
		{Name: "canary", Ref: "refs/tags/canary"}, {Name: "production", Ref: "refs/tags/prod"}, {Name: "staging", Ref: "refs/heads/main~1"}}}
	srv := labelServerOf(t, r.Dir, cfg)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	if resp, body := call(t, ts, "POST", "/v1/render/note", noteInput, ""); resp.StatusCode != 200 || promptOf(t, body) != helloV1 {
		t.Errorf("production beside a failing canary: %d %.300s", resp.StatusCode, body)
	}
	resp, body := call(t, ts, "POST", "/v1/render/note?label=canary", noteInput, "")
	var e struct {
		Error struct{ Kind, Reason, Parameter, Position string }
	}
	json.Unmarshal(body, &e)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || e.Error.Kind != "unavailable" || e.Error.Parameter != "label" ||
		!strings.Contains(e.Error.Reason, "label canary (refs/tags/canary) cannot be served: commit "+bad[:12]) ||
		!strings.HasPrefix(e.Error.Position, "templates/note/prompt.yaml") {
		t.Errorf("a render of the failing label: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, ts, "GET", "/readyz", "", ""); resp.StatusCode != 200 {
		t.Errorf("/readyz while the default label serves: %d %s", resp.StatusCode, body)
	}
	_, body = call(t, ts, "GET", "/v1/libraries", "", "")
	list := libraryList(t, body)
	if len(list) != 3 || list[0].Label != "canary" || list[0].Status != labels.StateFailing || list[0].FailingCommit != bad ||
		list[0].Commit != "" || list[0].Error == nil || strings.Contains(string(body), `"loaded_at":"0001`) {
		t.Errorf("GET /v1/libraries: %s", body)
	}
	m := scrape(t, ts, "")
	prod := srv.Labels.List()[1]
	for series, want := range map[string]string{
		`promptsmith_label_failing{label="canary"}`:                                                                                               "1",
		`promptsmith_label_failing{label="production"}`:                                                                                           "0",
		`promptsmith_renders_total{label="canary",outcome="unavailable",variant=""}`:                                                              "1",
		`promptsmith_renders_total{label="production",outcome="ok",variant="note"}`:                                                               "1",
		`promptsmith_render_duration_seconds_count{label="production",variant="note"}`:                                                            "1",
		`promptsmith_library_info{label="production",library="` + prod.Library + `",library_short="` + prod.Library[:12] + `",version="(devel)"}`: "1",
	} {
		if m[series] != want {
			t.Errorf("%s = %q, want %s", series, m[series], want)
		}
	}
	for series := range m {
		if strings.HasPrefix(series, "promptsmith_library_info{") && (strings.Contains(series, `label="canary"`) || strings.Contains(series, `label=""`)) {
			t.Errorf("library_info of a label that serves nothing, or of none: %s", series)
		}
	}

	// ?label= on the endpoints that read a library.
	staging := srv.Labels.List()[2]
	var v struct{ Library string }
	resp, body = call(t, ts, "GET", "/v1/version?label=staging", "", "")
	json.Unmarshal(body, &v)
	if resp.StatusCode != 200 || v.Library != staging.Library || resp.Header.Get("X-Promptsmith-Label") != "staging" {
		t.Errorf("/v1/version?label=staging: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/v1/version", "/v1/openapi.json", "/v1/variants/note/lint"} {
		if resp, body := call(t, ts, "GET", path+"?label=canary", "", ""); resp.StatusCode != 503 {
			t.Errorf("%s?label=canary: %d %.200s", path, resp.StatusCode, body)
		}
		if resp, body := call(t, ts, "GET", path+"?label=nope", "", ""); resp.StatusCode != 404 || !strings.Contains(string(body), `unknown label \"nope\"`) {
			t.Errorf("%s?label=nope: %d %.200s", path, resp.StatusCode, body)
		}
	}
	if resp, body := call(t, ts, "GET", "/v1/variants/note/lint?label=staging", "", ""); resp.StatusCode != 200 || resp.Header.Get("X-Promptsmith-Commit") != staging.Commit {
		t.Errorf("lint?label=staging: %d %.200s", resp.StatusCode, body)
	}
	if resp, body := call(t, ts, "GET", "/v1/openapi.json?label=staging", "", ""); resp.StatusCode != 200 || resp.Header.Get("X-Promptsmith-Label") != "staging" {
		t.Errorf("openapi.json?label=staging: %d %.200s", resp.StatusCode, body)
	}

	// The failing label as the default: not ready; the others serve.
	cfg.Default = "canary"
	srv2 := labelServerOf(t, r.Dir, cfg)
	ts2 := httptest.NewServer(srv2)
	defer ts2.Close()
	if resp, body := call(t, ts2, "GET", "/readyz", "", ""); resp.StatusCode != 503 || !strings.Contains(string(body), "the default label canary serves nothing") {
		t.Errorf("/readyz while the default label serves nothing: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, ts2, "POST", "/v1/render/note?label=production", noteInput, ""); resp.StatusCode != 200 || promptOf(t, body) != helloV1 {
		t.Errorf("production beside a failing default: %d %.300s", resp.StatusCode, body)
	}
	if resp, _ := call(t, ts2, "POST", "/v1/render/note", noteInput, ""); resp.StatusCode != 503 {
		t.Errorf("a render of the failing default: %d", resp.StatusCode)
	}
	// The canary fixed: the default serves, and the server is ready.
	r.Git("tag", "-f", "canary", "main~1")
	if err := srv2.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if resp, body := call(t, ts2, "GET", "/readyz", "", ""); resp.StatusCode != 200 {
		t.Errorf("/readyz once the default serves: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, ts2, "POST", "/v1/render/note", noteInput, ""); resp.StatusCode != 200 || promptOf(t, body) != helloMore {
		t.Errorf("the default once fixed: %d %.300s", resp.StatusCode, body)
	}
}

// TestLabelEvents: GET /v1/events?label= streams the library of the label
// it names, naming the label in its answer.
func TestLabelEvents(t *testing.T) {
	r := history(t)
	srv := labelServer(t, r.Dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.StreamEvents(ctx)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	staging := srv.Labels.List()[1]
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/events?label=staging", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Promptsmith-Label") != "staging" {
		t.Fatalf("GET /v1/events?label=staging: %d, label %q", resp.StatusCode, resp.Header.Get("X-Promptsmith-Label"))
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if !strings.Contains(data, `"library":"`+staging.Library[:12]+`"`) {
				t.Errorf("the event of staging: %s, want library %s", data, staging.Library[:12])
			}
			return
		}
	}
	t.Fatal("the stream ended before its first event")
}
