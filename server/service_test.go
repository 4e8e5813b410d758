package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// scrape reads /metrics and returns each sample line's value by its name
// and labels, as the exposition writes them.
func scrape(t *testing.T, ts *httptest.Server, token string) map[string]string {
	t.Helper()
	resp, body := call(t, ts, "GET", "/metrics", "", token)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	samples := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		samples[line[:i]] = line[i+1:]
	}
	return samples
}

// auditFailsWhenSet gives srv an audit hook that fails ("disk full")
// while the switch it returns is set, and succeeds while it is not.
func auditFailsWhenSet(srv *server.Server) *atomic.Bool {
	fail := new(atomic.Bool)
	srv.Audit = server.RecordHook(func(*engine.Variant, *engine.Result) error {
		if fail.Load() {
			return errors.New("disk full")
		}
		return nil
	})
	return fail
}

// TestMetrics scrapes /metrics after renders of each outcome, audit writes
// that succeed and fail, and reloads.
func TestMetrics(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	srv := server.New(lib)
	fail := auditFailsWhenSet(srv)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for range 3 {
		call(t, ts, "POST", "/v1/render/delegation", input, "")
	}
	call(t, ts, "POST", "/v1/check/delegation", input, "")
	call(t, ts, "POST", "/v1/render/delegation", `{"parent": {}}`, "")
	call(t, ts, "POST", "/v1/render/delegation", failingCheck, "")
	call(t, ts, "POST", "/v1/render/nope", input, "")
	fail.Store(true)
	call(t, ts, "POST", "/v1/render/delegation", input, "")
	srv.Swap(lib)
	srv.ReloadFailed(errors.New("templates/x: broken"))
	call(t, ts, "PUT", "/v1/render/delegation", "", "")
	call(t, ts, "GET", "/nope", "", "")

	m := scrape(t, ts, "")
	want := map[string]string{
		`promptsmith_renders_total{label="",outcome="ok",variant="delegation"}`:                         "4",
		`promptsmith_renders_total{label="",outcome="input_error",variant="delegation"}`:                "1",
		`promptsmith_renders_total{label="",outcome="check_failure",variant="delegation"}`:              "1",
		`promptsmith_renders_total{label="",outcome="unavailable",variant="delegation"}`:                "1",
		`promptsmith_renders_total{label="",outcome="input_error",variant=""}`:                          "1",
		`promptsmith_render_duration_seconds_count{label="",variant="delegation"}`:                      "7",
		`promptsmith_audit_writes_total`:                                                                "4",
		`promptsmith_audit_failures_total`:                                                              "1",
		`promptsmith_renders_in_flight`:                                                                 "0",
		`promptsmith_renders_queued`:                                                                    "0",
		`promptsmith_library_reloads_total`:                                                             "1",
		`promptsmith_library_reload_failures_total`:                                                     "1",
		`promptsmith_http_requests_total{code="200",route="POST /v1/render/{variant}"}`:                 "3",
		`promptsmith_http_requests_total{code="422",route="POST /v1/render/{variant}"}`:                 "2",
		`promptsmith_http_requests_total{code="405",route="/v1/render/{variant}"}`:                      "1",
		`promptsmith_http_requests_total{code="404",route=""}`:                                          "1",
		`promptsmith_render_queue_seconds_count`:                                                        "7",
		`promptsmith_audit_write_duration_seconds_count`:                                                "4",
		`promptsmith_http_request_duration_seconds_count{code="200",route="POST /v1/render/{variant}"}`: "3",
		`promptsmith_http_request_duration_seconds_count{code="404",route=""}`:                          "1",
		`promptsmith_library_info{label="",library="` + lib.Provenance().Library + `",library_short="` + lib.Provenance().Short + `",version="` + lib.Provenance().Version + `"}`: "1",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %s", k, m[k], v)
		}
	}
	// Bytes rendered: three renders, a check, the check failure and the
	// render whose audit write failed.
	res, _ := lib.Render(context.Background(), "delegation", engine.Input{Name: "x", Data: []byte(input)})
	failed, _ := lib.Render(context.Background(), "delegation", engine.Input{Name: "x", Data: []byte(failingCheck)})
	if got, want := m[`promptsmith_rendered_bytes_total{label="",variant="delegation"}`], len(res.Text)*5+len(failed.Text); got != fmt.Sprint(want) {
		t.Errorf("bytes rendered %s, want %d", got, want)
	}
	if m["go_goroutines"] == "" || m["process_open_fds"] == "" && m["process_cpu_seconds_total"] == "" {
		t.Error("no Go or process metrics")
	}
}

// TestBoundedRenders: with two render slots and one queue place, two
// renders run, a third waits, a fourth is turned away with 503 and
// Retry-After; released, the three finish. Renders hold their slot in a
// slot hook that waits for the test, so nothing depends on timing.
func TestBoundedRenders(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	srv, release, entered := blockingServer(t, lib, 2, 1)
	var running, most atomic.Int32
	hold := server.SlotHookOf(srv)
	server.SetSlotHook(srv, func() {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		defer running.Add(-1)
		hold()
	})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	codes := make(chan int, 3)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := call(t, ts, "POST", "/v1/render/delegation", input, "")
			codes <- resp.StatusCode
		}()
	}
	<-entered
	<-entered
	server.AwaitGauge(t, srv, "promptsmith_renders_queued", 1)
	if n := server.GaugeOf(t, srv, "promptsmith_renders_in_flight"); n != 2 {
		t.Errorf("%v renders in flight, want 2", n)
	}
	resp, body := call(t, ts, "POST", "/v1/render/delegation", input, "")
	var e struct{ Error struct{ Kind, Reason string } }
	json.Unmarshal(body, &e)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || e.Error.Kind != "unavailable" {
		t.Errorf("a render past the queue: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	close(release)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != 200 {
			t.Errorf("a queued render answered %d", code)
		}
	}
	if most.Load() != 2 {
		t.Errorf("%d renders ran at once, want 2", most.Load())
	}
	m := scrape(t, ts, "")
	if m[`promptsmith_renders_total{label="",outcome="rejected",variant="delegation"}`] != "1" || m[`promptsmith_renders_total{label="",outcome="ok",variant="delegation"}`] != "3" {
		t.Errorf("outcomes: %v", m)
	}
}

// TestToken: with a token, every request but /healthz needs it, compared
// whole; without one the server answers 401 and a Bearer challenge.
func TestToken(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	srv.Token = "tok"
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, c := range []struct {
		path, header string
		code         int
		challenge    string
	}{
		{"/healthz", "", 200, ""},
		{"/v1/variants", "", 401, `Bearer realm="promptsmith"`},
		{"/v1/variants", "Bearer to", 401, `Bearer realm="promptsmith", error="invalid_token"`},
		{"/v1/variants", "Bearer tokk", 401, `Bearer realm="promptsmith", error="invalid_token"`},
		{"/v1/variants", "Basic tok", 401, `Bearer realm="promptsmith", error="invalid_token"`},
		{"/v1/variants", "Bearer tok", 200, ""},
		{"/v1/variants", "bearer tok", 200, ""},
		{"/metrics", "", 401, `Bearer realm="promptsmith"`},
		{"/", "", 401, `Bearer realm="promptsmith"`},
	} {
		resp, body := call(t, ts, "GET", c.path, "", "", "Authorization", c.header)
		if resp.StatusCode != c.code || resp.Header.Get("WWW-Authenticate") != c.challenge {
			t.Errorf("%s with %q: %d %q %s", c.path, c.header, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
}

// TestCORS: an allowed origin gets its preflight answered and may read the
// answers; any other gets 403 and none of that. Without --cors-origin no
// CORS header is sent at all.
func TestCORS(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	srv.Token = "tok"
	srv.CORSOrigins = []string{"https://app.example"}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	preflight := func(origin string) *http.Response {
		resp, _ := call(t, ts, "OPTIONS", "/v1/render/delegation", "", "",
			"Origin", origin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type")
		return resp
	}
	resp := preflight("https://app.example")
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight from an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := preflight("https://evil.example"); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = call(t, ts, "POST", "/v1/render/delegation", input, "tok", "Origin", "https://app.example", "Content-Type", "application/json")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "X-Promptsmith-Library") {
		t.Errorf("a call from an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = call(t, ts, "POST", "/v1/render/delegation", input, "", "Origin", "https://app.example", "Content-Type", "application/json")
	if resp.StatusCode != 401 || resp.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("a browser must be able to read a 401: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = call(t, ts, "POST", "/v1/render/delegation", input, "tok", "Origin", "https://evil.example", "Content-Type", "application/json")
	if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin was allowed: %d %v", resp.StatusCode, resp.Header)
	}

	plain := httptest.NewServer(builtinServer())
	defer plain.Close()
	resp, _ = call(t, plain, "OPTIONS", "/v1/render/delegation", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.StatusCode != 403 {
		t.Errorf("no --cors-origin, a preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = call(t, plain, "OPTIONS", "/v1/render/delegation", "", "")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Allow") != "POST, OPTIONS" || resp.StatusCode != 204 {
		t.Errorf("no --cors-origin, OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestProvenanceHeaders: render and check answers name the library and the
// variant that made them, as /v1/version and the Result do.
func TestProvenanceHeaders(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	var version map[string]string
	_, body := call(t, ts, "GET", "/v1/version", "", "")
	json.Unmarshal(body, &version)
	for _, path := range []string{"/v1/render/delegation", "/v1/check/delegation"} {
		resp, body := call(t, ts, "POST", path, input, "")
		var res struct{ Provenance map[string]string }
		json.Unmarshal(body, &res)
		h := resp.Header
		if h.Get("X-Promptsmith-Library") != res.Provenance["library_short"] || h.Get("X-Promptsmith-Library") == "" ||
			h.Get("X-Promptsmith-Library-Hash") != version["library"] || h.Get("X-Promptsmith-Variant-Hash") != res.Provenance["variant"] ||
			h.Get("X-Promptsmith-Version") != version["version"] || version["library_short"] != res.Provenance["library_short"] {
			t.Errorf("%s: headers %v, provenance %v, version %v", path, h, res.Provenance, version)
		}
	}
}

// TestCheckFailureNamesChecksNotDisk: a library loaded from a folder gives
// absolute positions; a failed check on the wire names the check and the
// section, and positions relative to the library, never the server's disk.
func TestCheckFailureNamesChecksNotDisk(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	copyTree(t, "..", root, "templates", "schemas")
	ts := httptest.NewServer(server.New(fixture.LoadDir(t, root)))
	defer ts.Close()
	for _, path := range []string{"/v1/render/delegation", "/v1/check/delegation"} {
		resp, body := call(t, ts, "POST", path, failingCheck, "")
		if resp.StatusCode != 422 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if strings.Contains(string(body), root) {
			t.Errorf("%s: the answer names the server's disk:\n%s", path, body)
		}
		var out struct{ Error map[string]any }
		json.Unmarshal(body, &out)
		e := out.Error
		if e["kind"] != "check" || e["variant"] != "delegation" || e["position"] != "templates/delegation/prompt.yaml" {
			t.Errorf("%s: %v", path, e)
		}
		also, _ := e["also"].([]any)
		if len(also) != 1 {
			t.Fatalf("%s: also %v", path, e["also"])
		}
		a := also[0].(map[string]any)
		if a["check"] != `forbid "${"` || a["section"] != "details" || a["kind"] != "check" || !strings.Contains(a["reason"].(string), "line") {
			t.Errorf("%s: the failed check: %v", path, a)
		}
	}
}

func copyTree(t *testing.T, from, to string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(from, d), func(p string, de os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(from, p)
			if de.IsDir() {
				return os.MkdirAll(filepath.Join(to, rel), 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(to, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestGracefulShutdown: a request in flight when the shutdown begins is
// answered and recorded before Serve returns; new connections are refused.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	srv, release, entered := blockingServer(t, lib, 1, 0)
	var recorded atomic.Bool
	srv.Audit = server.RecordHook(func(v *engine.Variant, res *engine.Result) error {
		recorded.Store(true)
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.Serve(ctx, ln, srv, testHTTPConfig()) }()

	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/v1/render/delegation", "application/json", strings.NewReader(input))
		if err != nil {
			t.Error(err)
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-entered
	cancel()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break // the listener is closed: the shutdown has begun
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener stayed open")
		}
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned with a request in flight: %v", err)
	default:
	}
	close(release)
	if code := <-answered; code != 200 {
		t.Errorf("the request in flight answered %d", code)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !recorded.Load() {
		t.Error("the request in flight was not recorded")
	}
}

// TestHTTPServerLimits: the one http.Server has every timeout and the
// header limit, and Serve limits open connections.
func TestHTTPServerLimits(t *testing.T) {
	t.Parallel()
	c := server.DefaultHTTPConfig()
	hs := server.HTTPServer(http.NotFoundHandler(), c)
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 {
		t.Errorf("%+v", hs)
	}
	if c.WriteTimeout <= server.DefaultRenderTimeout {
		t.Error("a render that takes its whole timeout could not be written")
	}
	// Two connections allowed: a third is not served until one closes.
	lib, _ := promptsmith.Library()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.MaxConns = 2
	go server.Serve(ctx, ln, server.New(lib), c)
	var conns []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conns = append(conns, conn)
		get(t, conn) // served: it holds one of the two places
	}
	third, err := net.Dial("tcp", ln.Addr().String()) // the kernel accepts it; the server does not yet
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	third.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	conns[0].Close()
	if status := readStatus(t, third); status != "HTTP/1.1 200 OK" {
		t.Errorf("the third connection: %q", status)
	}
}

func get(t *testing.T, conn net.Conn) {
	t.Helper()
	conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	if status := readStatus(t, conn); status != "HTTP/1.1 200 OK" {
		t.Fatalf("status %q", status)
	}
}

var statusLine = regexp.MustCompile(`^HTTP/1\.1 \d+ .*`)

func readStatus(t *testing.T, conn net.Conn) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	line = strings.TrimSpace(line)
	if !statusLine.MatchString(line) {
		t.Fatalf("not a status line: %q", line)
	}
	return line
}

// TestClientLeaves: a render whose client goes away stops: here while it
// waits for a slot, which it gives back at once.
func TestClientLeaves(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	srv, release, entered := blockingServer(t, lib, 1, 1)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, ts, "POST", "/v1/render/delegation", input, "")
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/render/delegation", strings.NewReader(input))
		_, err := ts.Client().Do(req)
		left <- err
	}()
	server.AwaitGauge(t, srv, "promptsmith_renders_queued", 1)
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Errorf("the client: %v", err)
	}
	server.AwaitGauge(t, srv, "promptsmith_renders_queued", 0)
	close(release)
	<-done
	// The cancelled handler counts its outcome as it returns, which the
	// test cannot see: poll; the deadline only bounds a hung server.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		m := scrape(t, ts, "")
		if m[`promptsmith_renders_total{label="",outcome="cancelled",variant="delegation"}`] == "1" && m[`promptsmith_renders_total{label="",outcome="ok",variant="delegation"}`] == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outcomes: %v", m)
		}
	}
}

// testHTTPConfig is DefaultHTTPConfig without the drain delay: a test
// that stops a server and is not about draining does not wait for a load
// balancer that is not there (TestProbes drains).
func testHTTPConfig() server.HTTPConfig {
	c := server.DefaultHTTPConfig()
	c.DrainDelay = 0
	return c
}
