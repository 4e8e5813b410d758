package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// workingCopy copies the embedded library and the repository's golden
// files into a folder, as an author's working copy holds them.
func workingCopy(t *testing.T) string {
	t.Helper()
	dir := fixture.LibraryCopy(t)
	if err := os.CopyFS(filepath.Join(dir, "testdata", "golden"), os.DirFS(filepath.Join("..", "testdata", "golden"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveWorkingCopy serves lib as loaded from the working copy dir, whose
// golden files it offers; the server closes when the test ends.
func serveWorkingCopy(t *testing.T, lib *engine.Library, dir string) (*server.Server, *httptest.Server) {
	srv := server.New(lib)
	srv.WorkingCopy = dir
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

// crowdedExample is the text of the space variant's crowded example in the
// working copy dir.
func crowdedExample(dir string) []byte {
	b, _ := os.ReadFile(filepath.Join(dir, "templates", "space", "examples", "crowded.yaml"))
	return b
}

// TestPreviewEndpoints: lint, golden files and token budgets, each answer
// validated against the OpenAPI document.
func TestPreviewEndpoints(t *testing.T) {
	t.Parallel()
	dir := workingCopy(t)
	// A golden file that differs, one that is missing.
	restricted := filepath.Join(dir, "testdata", "golden", "delegation", "restricted-tools.md")
	b, _ := os.ReadFile(restricted)
	os.WriteFile(restricted, []byte(strings.Replace(string(b), fixture.Heading(t, "delegation", 0), "# An Older Overview", 1)), 0o644)
	os.Remove(filepath.Join(dir, "testdata", "golden", "delegation", "minimal.md"))
	lib := fixture.LoadDir(t, dir)
	_, ts := serveWorkingCopy(t, lib, dir)
	doc := fetchDoc(t, ts, "")
	crowded := crowdedExample(dir)

	cases := []struct {
		method, path, body string
		code               int
		want               []string
	}{
		{"GET", "/v1/variants/space/lint", "", 200, []string{`"variant": "space"`, `"findings": []`}},
		{"GET", "/v1/variants/delegation/lint", "", 200, []string{`"position": "testdata/golden/delegation/restricted-tools.md"`,
			`"position": "testdata/golden/delegation/minimal.md"`, `no golden file`}},
		{"GET", "/v1/variants/nope/lint", "", 404, nil},
		{"GET", "/v1/variants/delegation/examples/crlf-parent/golden", "", 200, []string{`"status": "ok"`, `"file": "testdata/golden/delegation/crlf-parent.md"`}},
		{"GET", "/v1/variants/delegation/examples/restricted-tools/golden", "", 200, []string{`"status": "differs"`, `-# An Older Overview`, "+" + fixture.Heading(t, "delegation", 0)}},
		{"GET", "/v1/variants/delegation/examples/minimal/golden", "", 200, []string{`"status": "missing"`, `"golden": ""`}},
		{"GET", "/v1/variants/space/examples/crowded/golden?max_tokens=1000&tokens=o200k_base", "", 200, []string{`"status": "ok"`, `crowded.1000-tokens.md`}},
		{"GET", "/v1/variants/space/examples/crowded/golden?max_tokens=999&tokens=o200k_base", "", 404, []string{`budget_examples`}},
		{"GET", "/v1/variants/space/examples/crowded/golden?max_tokens=-1", "", 400, []string{`"parameter": "max_tokens"`}},
		{"GET", "/v1/variants/space/examples/nope/golden", "", 404, nil},
		{"GET", "/v1/variants/nope/examples/crowded/golden", "", 404, nil},
		{"POST", "/v1/render/space?max_tokens=1000&tokens=o200k_base", string(crowded), 200, []string{`"budget": {`, `"max_tokens": 1000`, `"tokens_saved"`, `"stable_prefix"`}},
		{"POST", "/v1/render/space?tokens=cl100k_base", string(crowded), 200, []string{`"tokens": `}},
		{"POST", "/v1/render/space?max_tokens=10&tokens=o200k_base", string(crowded), 422, []string{`"kind": "input"`, `over the limit of 10`}},
		{"POST", "/v1/render/space?max_tokens=1000", string(crowded), 400, []string{`"parameter": "max_tokens"`, `tokens=o200k_base`}},
		{"POST", "/v1/render/space?tokens=nope", string(crowded), 400, []string{`"parameter": "tokens"`}},
		{"POST", "/v1/check/space?max_tokens=1000&tokens=o200k_base", string(crowded), 200, []string{`"ok": true`}},
		{"GET", "/v1/events", "", 404, []string{`--watch`}},
	}
	for _, c := range cases {
		resp, body := call(t, ts, c.method, c.path, c.body, "")
		if resp.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d: %.500s", c.method, c.path, resp.StatusCode, c.code, body)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("%s %s lacks %q: %.1500s", c.method, c.path, w, body)
			}
		}
		doc.check(t, c.method, c.path, resp, body)
	}
	// The token counts of a render are per section too, and add up to
	// no more than the prompt's.
	_, res := do(t, ts, "POST", "/v1/render/space?tokens=o200k_base", string(crowded))
	total, sum := res["tokens"].(float64), 0.0
	for _, s := range res["sections"].([]any) {
		n, _ := s.(map[string]any)["tokens"].(float64)
		if n == 0 {
			t.Errorf("section %v has no token count", s)
		}
		sum += n
	}
	if total == 0 || sum > total+float64(len(res["sections"].([]any))) {
		t.Errorf("the prompt has %v tokens, its sections %v", total, sum)
	}

	// Without a working copy the golden files are not offered, nor listed.
	plain, _ := promptsmith.Library()
	pts := httptest.NewServer(server.New(plain))
	defer pts.Close()
	pdoc := fetchDoc(t, pts, "")
	if pdoc.get("paths", "/v1/variants/{variant}/examples/{example}/golden") != nil || pdoc.get("paths", "/v1/events") != nil {
		t.Error("the document lists golden files or events a server without a working copy or watcher lacks")
	}
	if pdoc.get("paths", "/v1/variants/{variant}/lint") == nil {
		t.Error("lint is not in the document")
	}
	resp, body := call(t, pts, "GET", "/v1/variants/delegation/examples/minimal/golden", "", "")
	if resp.StatusCode != 404 {
		t.Errorf("golden without a working copy: %d %s", resp.StatusCode, body)
	}
	pdoc.check(t, "GET", "/v1/variants/delegation/examples/minimal/golden", resp, body)
	resp, body = call(t, pts, "GET", "/v1/variants/delegation/lint", "", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"findings": []`) {
		t.Errorf("static lint without a working copy: %d %s", resp.StatusCode, body)
	}
}

// event is one server-sent event.
type event struct {
	id, name, data string
}

// readEvent reads the next event of a stream, past comments and retry.
func readEvent(t *testing.T, r *bufio.Reader) event {
	t.Helper()
	var e event
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && e.name != "":
			return e
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			e.data = line[6:]
		}
	}
}

// openStream opens GET /v1/events with a deadline that only bounds a hang.
func openStream(t *testing.T, base string, header ...string) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/events", nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewReader(resp.Body)
}

// TestEvents: a stream says the state at once and after each Swap and
// ReloadFailed, each event's data valid against LibraryStatus; a client
// that has seen the state is not told it again; the streams are bounded,
// a client that leaves gives its place back, the streams outlive the
// server's read and write timeouts, and they end when the server stops
// streaming, so that a graceful shutdown does not wait for them.
func TestEvents(t *testing.T) {
	t.Parallel()
	dir := workingCopy(t)
	lib := fixture.LoadDir(t, dir)
	srv := server.New(lib)
	srv.MaxEventStreams = 2
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	srv.StreamEvents(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testHTTPConfig()
	cfg.ReadTimeout, cfg.WriteTimeout = 200*time.Millisecond, 200*time.Millisecond
	serveCtx, shutdown := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.Serve(serveCtx, ln, srv, cfg) }()
	base := "http://" + ln.Addr().String()

	ts := httptest.NewServer(srv) // the same server, for the document's checks
	defer ts.Close()
	doc := fetchDoc(t, ts, "")
	status, err := doc.compiler.Compile(docURL + pointer("components", "schemas", "LibraryStatus"))
	if err != nil {
		t.Fatal(err)
	}
	decode := func(e event) map[string]any {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("event data %q: %v", e.data, err)
		}
		if err := status.Validate(v); err != nil {
			t.Errorf("event data %s does not match LibraryStatus: %v", e.data, err)
		}
		return v
	}

	resp, r := openStream(t, base)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	first := readEvent(t, r)
	doc.check(t, "GET", "/v1/events", resp, []byte(fmt.Sprintf("id: %s\nevent: %s\ndata: %s\n\n", first.id, first.name, first.data)))
	if v := decode(first); first.name != "library" || v["ok"] != true || v["library"] != lib.Provenance().Short {
		t.Errorf("the first event: %+v", first)
	}

	// A template breaks: the new library is swapped in, its broken
	// variant served from its last good version; then a reload fails.
	overview := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	os.WriteFile(overview, []byte("{{ if .parent }}\n"), 0o644)
	broken := fixture.LoadDir(t, dir)
	srv.Swap(broken.Fallback(lib))
	e := readEvent(t, r)
	v := decode(e)
	if v["ok"] != false || v["stale"] == true || fmt.Sprint(v["stale_variants"]) != "[delegation]" ||
		!strings.Contains(e.data, `"position":"templates/delegation/overview.md.tmpl:1:1"`) || strings.Contains(e.data, dir) || e.id == first.id {
		t.Errorf("the event of a broken variant: %+v", e)
	}
	srv.ReloadFailed(&engine.Error{Kind: engine.KindTemplate, Reason: "no variants found", Position: filepath.Join(dir, "templates")})
	e = readEvent(t, r)
	if v := decode(e); v["ok"] != false || v["stale"] != true || !strings.Contains(e.data, "no variants found") || strings.Contains(e.data, dir) {
		t.Errorf("the event of a failed reload: %+v", e)
	}

	// The stream has outlived the server's read and write timeouts: it
	// still carries events after both have passed several times over.
	time.Sleep(4 * cfg.WriteTimeout)
	srv.Swap(lib)
	if e := readEvent(t, r); decode(e)["ok"] != true {
		t.Errorf("after the timeouts: %+v", e)
	}

	// Seen already: a reconnection with the last id gets no event until
	// the next change.
	resp2, r2 := openStream(t, base, "Last-Event-ID", e.id)
	if resp2.StatusCode != 200 {
		t.Fatalf("a second stream: %d", resp2.StatusCode)
	}
	// Two streams are open: a third is turned away.
	resp3, _ := openStream(t, base)
	if resp3.StatusCode != 503 || resp3.Header.Get("Retry-After") == "" {
		t.Errorf("a stream past the bound: %d", resp3.StatusCode)
	}
	body3, _ := io.ReadAll(resp3.Body)
	doc.check(t, "GET", "/v1/events", resp3, body3)
	srv.Swap(lib)
	if e2 := readEvent(t, r2); e2.id == e.id {
		t.Errorf("the reconnected stream was told the state it had seen: %+v", e2)
	}
	// A client that leaves gives its place back.
	resp2.Body.Close()
	var again *http.Response
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		again, _ = openStream(t, base)
		if again.StatusCode == 200 || time.Now().After(deadline) {
			break
		}
		again.Body.Close()
	}
	if again.StatusCode != 200 {
		t.Errorf("the place of a stream that left was not given back: %d", again.StatusCode)
	}

	// Streaming stops: the streams end, and the shutdown does not wait.
	stop()
	if _, err := r.ReadString(0); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the stream did not end with StreamEvents' context: %v", err)
	}
	shutdown()
	if err := <-served; err != nil {
		t.Errorf("the shutdown: %v", err)
	}
	resp, body := call(t, ts, "GET", "/v1/events", "", "")
	if resp.StatusCode != 503 {
		t.Errorf("events after the stop: %d %s", resp.StatusCode, body)
	}
}
