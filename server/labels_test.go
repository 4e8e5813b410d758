package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
	"github.com/promptsmith/promptsmith/server"
)

// The note variant's input, and its prompt at each commit of history.
const (
	noteInput = testrepo.NoteInput
	helloV1   = testrepo.HelloV1
	helloMore = testrepo.HelloMore
)

// history is testrepo.NoteHistory: production serves helloV1, staging
// helloMore.
func history(t *testing.T) *testrepo.Repo { return testrepo.NoteHistory(t) }

// labelServer serves the repository at production (the prod tag, the
// default) and staging (main), as render serve --repo wires it: every
// refresh is told to the server, the first once it exists.
func labelServer(t *testing.T, dir string) *server.Server {
	t.Helper()
	return labelServerOf(t, dir, labels.Config{Default: "production", Labels: []labels.Label{
		{Name: "production", Ref: "refs/tags/prod"}, {Name: "staging", Ref: "refs/heads/main"}}})
}

// serveLabels serves labelServer's labels of a new history behind token
// ("" for none) over HTTP until the test ends.
func serveLabels(t *testing.T, token string) (*testrepo.Repo, *server.Server, *httptest.Server) {
	t.Helper()
	r := history(t)
	srv := labelServer(t, r.Dir)
	srv.Token = token
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return r, srv, ts
}

// labelServerOf is labelServer for the labels of cfg.
func labelServerOf(t *testing.T, dir string, cfg labels.Config) *server.Server {
	t.Helper()
	var (
		srv   *server.Server
		first []labels.Outcome
	)
	reg, err := labels.New(context.Background(), dir, cfg, labels.Options{OnRefresh: func(o labels.Outcome) {
		if srv == nil {
			first = append(first, o)
			return
		}
		srv.LabelRefreshed(o)
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv = server.New(reg.Initial().Library)
	srv.Labels = reg
	for _, o := range first {
		srv.LabelRefreshed(o)
	}
	return srv
}

// promptOf is the text of a render's answer.
func promptOf(t *testing.T, body []byte) string {
	t.Helper()
	var res struct{ Text string }
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	return res.Text
}

// libraryList is the answer of GET /v1/libraries or POST /v1/reload.
func libraryList(t *testing.T, body []byte) []labels.Status {
	t.Helper()
	var list []labels.Status
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	return list
}

// TestLabelsSideBySide: two labels served at once with different text,
// picked by query or header, each answer naming its label and commit; a
// pinned library that the label serves renders and one it does not is
// 409; an unknown label 404; query and header naming different labels
// 400. Every answer matches the OpenAPI document, which lists the label
// endpoints, parameters and headers.
func TestLabelsSideBySide(t *testing.T) {
	t.Parallel()
	r, srv, ts := serveLabels(t, "")
	doc := fetchDoc(t, ts, "")
	prod, main := r.RevParse("prod"), r.RevParse("main")

	cases := []struct {
		path, label string // label: the X-Promptsmith-Label header
		want        string
		label2      string
		commit      string
	}{
		{"/v1/render/note", "", helloV1, "production", prod},
		{"/v1/render/note?label=production", "", helloV1, "production", prod},
		{"/v1/render/note?label=staging", "", helloMore, "staging", main},
		{"/v1/render/note", "staging", helloMore, "staging", main},
		{"/v1/render/note?label=staging", "staging", helloMore, "staging", main},
	}
	for _, c := range cases {
		resp, body := call(t, ts, "POST", c.path, noteInput, "", "X-Promptsmith-Label", c.label)
		if resp.StatusCode != 200 || promptOf(t, body) != c.want {
			t.Errorf("%s (header %q): %d %.200s", c.path, c.label, resp.StatusCode, body)
			continue
		}
		if l, cm := resp.Header.Get("X-Promptsmith-Label"), resp.Header.Get("X-Promptsmith-Commit"); l != c.label2 || cm != c.commit {
			t.Errorf("%s (header %q): label %q commit %q, want %q %q", c.path, c.label, l, cm, c.label2, c.commit)
		}
		doc.check(t, "POST", c.path, resp, body)
	}

	staging := srv.Labels.List()[1]
	errs := []struct {
		method, path, header string
		code                 int
		parameter            string
	}{
		{"POST", "/v1/render/note?label=production&library=" + staging.Library, "", 409, "library"},
		{"POST", "/v1/check/note?label=production&library=" + staging.Library[:12], "", 409, "library"},
		{"POST", "/v1/render/note?label=production&library=" + staging.Library[:8], "", 400, "library"},
		{"POST", "/v1/render/note?label=nope", "", 404, "label"},
		{"GET", "/v1/variants?label=nope", "", 404, "label"},
		{"POST", "/v1/render/note?label=production", "staging", 400, "label"},
		{"GET", "/v1/variants/note/schema?label=production", "staging", 400, "label"},
		{"GET", "/v1/variants/note/examples/basic?label=production&library=" + staging.Library, "", 409, "library"},
	}
	for _, c := range errs {
		resp, body := call(t, ts, c.method, c.path, noteInput, "", "X-Promptsmith-Label", c.header)
		var e struct{ Error struct{ Parameter string } }
		json.Unmarshal(body, &e)
		if resp.StatusCode != c.code || e.Error.Parameter != c.parameter {
			t.Errorf("%s %s: %d %.300s, want %d about %s", c.method, c.path, resp.StatusCode, body, c.code, c.parameter)
			continue
		}
		doc.check(t, c.method, c.path, resp, body)
	}
	resp, body := call(t, ts, "POST", "/v1/render/note?label=staging&library="+staging.Library, noteInput, "")
	if resp.StatusCode != 200 || promptOf(t, body) != helloMore {
		t.Errorf("pinned to the library staging serves: %d %.200s", resp.StatusCode, body)
	}

	resp, body = call(t, ts, "GET", "/v1/libraries", "", "")
	list := libraryList(t, body)
	if resp.StatusCode != 200 || len(list) != 2 || list[0].Label != "production" || !list[0].Default || list[0].Commit != prod ||
		list[1].Label != "staging" || list[1].Commit != main || list[1].Status != labels.StateOK {
		t.Errorf("GET /v1/libraries: %d %s", resp.StatusCode, body)
	}
	doc.check(t, "GET", "/v1/libraries", resp, body)
	for _, p := range []string{"/v1/libraries", "/v1/reload"} {
		if doc.get("paths", p) == nil {
			t.Errorf("the document lacks %s", p)
		}
	}
	if doc.get("components", "responses", "Conflict") == nil || doc.get("components", "headers", "X-Promptsmith-Commit") == nil {
		t.Error("the document lacks the 409 response or the commit header")
	}
	// staging's commit differs in note alone: memo, loaded for
	// production, is not parsed again.
	m := scrape(t, ts, "")
	if p, s := m[`promptsmith_label_variants_parsed_total{label="production"}`], m[`promptsmith_label_variants_parsed_total{label="staging"}`]; p != "2" || s != "1" {
		t.Errorf("variants parsed: production %q, staging %q, want 2 and 1", p, s)
	}
}

// TestNoLabels: without labels the label endpoints answer 404, are not
// in the document, and answers carry no label headers.
func TestNoLabels(t *testing.T) {
	t.Parallel()
	r := history(t)
	srv := labelServer(t, r.Dir)
	plain := server.New(srv.Library())
	ts := httptest.NewServer(plain)
	defer ts.Close()
	doc := fetchDoc(t, ts, "")
	for _, c := range [][2]string{{"GET", "/v1/libraries"}, {"POST", "/v1/reload"}} {
		if resp, body := call(t, ts, c[0], c[1], "", ""); resp.StatusCode != 404 {
			t.Errorf("%s %s without labels: %d %s", c[0], c[1], resp.StatusCode, body)
		}
		if doc.get("paths", c[1]) != nil {
			t.Errorf("%s is in the document of a server without labels", c[1])
		}
	}
	resp, _ := call(t, ts, "POST", "/v1/render/note?label=anything", noteInput, "")
	if resp.StatusCode != 200 || resp.Header.Get("X-Promptsmith-Label") != "" || resp.Header.Get("X-Promptsmith-Commit") != "" {
		t.Errorf("a render without labels: %d, label %q", resp.StatusCode, resp.Header.Get("X-Promptsmith-Label"))
	}
}

// TestPromotion: moving the prod tag and POST /v1/reload promotes
// staging's commit to production without a restart, while clients render
// production all along: no request fails, and every answer's text is
// the one its commit header names. A render in flight when the label
// moves finishes on the version it started with. The reload is behind
// the token.
func TestPromotion(t *testing.T) {
	t.Parallel()
	r, srv, ts := serveLabels(t, "s3cret")
	prod, main := r.RevParse("prod"), r.RevParse("main")
	want := map[string]string{prod: helloV1, main: helloMore}

	// One render held in its slot across the promotion.
	hold, entered := make(chan struct{}), make(chan struct{})
	var once sync.Once
	server.SetSlotHook(srv, func() { once.Do(func() { close(entered); <-hold }) })
	held := make(chan string, 1)
	go func() {
		resp, body := call(t, ts, "POST", "/v1/render/note?label=production", noteInput, "s3cret")
		held <- resp.Header.Get("X-Promptsmith-Commit") + " " + promptOf(t, body)
	}()
	<-entered

	var renders, after atomic.Int64
	var promoted, stopped atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stopped.Load() {
				moved := promoted.Load()
				resp, body := call(t, ts, "POST", "/v1/render/note", noteInput, "s3cret")
				commit := resp.Header.Get("X-Promptsmith-Commit")
				if resp.StatusCode != 200 || want[commit] == "" || promptOf(t, body) != want[commit] || moved && commit != main {
					t.Errorf("a render during the promotion: %d, commit %s: %.200s", resp.StatusCode, commit, body)
					return
				}
				renders.Add(1)
				if moved {
					after.Add(1)
				}
			}
		})
	}

	if resp, _ := call(t, ts, "POST", "/v1/reload", "", ""); resp.StatusCode != 401 {
		t.Errorf("POST /v1/reload without the token: %d", resp.StatusCode)
	}
	r.Git("tag", "-f", "prod", "main")
	resp, body := call(t, ts, "POST", "/v1/reload", "", "s3cret")
	if list := libraryList(t, body); resp.StatusCode != 200 || list[0].Commit != main || list[0].Status != labels.StateOK {
		t.Fatalf("POST /v1/reload: %d %s", resp.StatusCode, body)
	}
	promoted.Store(true)
	close(hold)
	if got := <-held; got != prod+" "+helloV1 {
		t.Errorf("the render in flight during the promotion answered %q, want the version it started with", got)
	}
	for after.Load() < 20 && !t.Failed() { // some renders after the promotion, however slow the machine
		resp, body := call(t, ts, "POST", "/v1/render/note", noteInput, "s3cret")
		if resp.StatusCode != 200 || promptOf(t, body) != helloMore {
			t.Fatalf("production after the promotion: %d %.200s", resp.StatusCode, body)
		}
		after.Add(1)
	}
	stopped.Store(true)
	wg.Wait()
	if renders.Load() == 0 {
		t.Error("no render ran during the promotion")
	}
	if v := scrape(t, ts, "s3cret")[`promptsmith_label_switches_total{label="production"}`]; v != "2" {
		t.Errorf("production's switches: %q, want 2 (the first load and the promotion)", v)
	}
}

// TestBrokenCommitServed: a commit whose library does not load leaves
// its label on its last good version, listed failing with the commit and
// the error, counted in promptsmith_label_failing; the other label and
// /readyz are unaffected.
func TestBrokenCommitServed(t *testing.T) {
	t.Parallel()
	r, _, ts := serveLabels(t, "")
	doc := fetchDoc(t, ts, "")
	good := r.RevParse("main")
	r.CommitFiles("Break memo", map[string]string{"templates/memo/memo.md.tmpl": "# Memo\n\nTo {{ .to }.\n"})
	broken := r.RevParse("main")

	resp, body := call(t, ts, "POST", "/v1/reload", "", "")
	list := libraryList(t, body)
	if resp.StatusCode != 200 || list[1].Status != labels.StateFailing || list[1].Commit != good || list[1].FailingCommit != broken ||
		list[1].Error == nil || !strings.Contains(list[1].Error.Position, "templates/memo/memo.md.tmpl") || list[0].Status != labels.StateOK {
		t.Fatalf("POST /v1/reload after a broken commit: %d %s", resp.StatusCode, body)
	}
	doc.check(t, "POST", "/v1/reload", resp, body)
	_, body = call(t, ts, "GET", "/v1/libraries", "", "")
	if l := libraryList(t, body); l[1].Status != labels.StateFailing {
		t.Errorf("GET /v1/libraries: %s", body)
	}
	resp, body = call(t, ts, "POST", "/v1/render/note?label=staging", noteInput, "")
	if resp.StatusCode != 200 || promptOf(t, body) != helloMore || resp.Header.Get("X-Promptsmith-Commit") != good {
		t.Errorf("staging after a broken commit: %d %s %.200s", resp.StatusCode, resp.Header.Get("X-Promptsmith-Commit"), body)
	}
	if resp, body := call(t, ts, "GET", "/readyz", "", ""); resp.StatusCode != 200 {
		t.Errorf("/readyz with a failing label: %d %s", resp.StatusCode, body)
	}
	m := scrape(t, ts, "")
	if m[`promptsmith_label_failing{label="staging"}`] != "1" || m[`promptsmith_label_failing{label="production"}`] != "0" ||
		m[`promptsmith_label_failures_total{label="staging"}`] != "1" {
		t.Errorf("label metrics: failing %q/%q, failures %q", m[`promptsmith_label_failing{label="staging"}`],
			m[`promptsmith_label_failing{label="production"}`], m[`promptsmith_label_failures_total{label="staging"}`])
	}
	call(t, ts, "POST", "/v1/reload", "", "") // the same broken commit: not counted again
	if v := scrape(t, ts, "")[`promptsmith_label_failures_total{label="staging"}`]; v != "1" {
		t.Errorf("failures after a second reload of the same broken commit: %q", v)
	}

	// A deleted tag: production stays, failing, counted once however
	// many reloads find it so.
	r.Git("tag", "-d", "prod")
	call(t, ts, "POST", "/v1/reload", "", "")
	resp, body = call(t, ts, "POST", "/v1/reload", "", "")
	if l := libraryList(t, body); resp.StatusCode != 200 || l[0].Status != labels.StateFailing || l[0].FailingCommit != "" {
		t.Errorf("after the prod tag was deleted: %s", body)
	}
	if resp, body := call(t, ts, "POST", "/v1/render/note", noteInput, ""); resp.StatusCode != 200 || promptOf(t, body) != helloV1 {
		t.Errorf("production after its tag was deleted: %d %.200s", resp.StatusCode, body)
	}
	if v := scrape(t, ts, "")[`promptsmith_label_failures_total{label="production"}`]; v != "1" {
		t.Errorf("failures after two reloads of a deleted tag: %q", v)
	}
}

// TestOpenAPIForGeneratorsWithLabels: the document of a server with
// labels, its label parameters, headers and endpoints included, holds
// nothing code generators reject.
func TestOpenAPIForGeneratorsWithLabels(t *testing.T) {
	t.Parallel()
	srv := labelServer(t, history(t).Dir)
	srv.Token = "s3cret"
	forGenerators(t, srv)
}

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
