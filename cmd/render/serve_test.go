package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// TestWatchReloads edits a working copy under a watching server: a good edit
// is served, a broken one is reported and the last good library kept.
func TestWatchReloads(t *testing.T) {
	t.Parallel()
	dir := fixture.LibraryCopy(t)
	var stderr fixture.SyncBuffer
	a := &app{stderr: &stderr, templates: dir}
	lib, err := a.library()
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(lib)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := a.watch(ctx, srv, slog.New(slog.NewTextHandler(&stderr, nil))); err != nil {
		t.Fatal(err)
	}
	render := func() string {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/render/delegation", strings.NewReader(validInput)))
		b, _ := io.ReadAll(rec.Result().Body)
		return string(b)
	}
	// waitFor polls until cond holds; the deadline only bounds a hung watcher.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("gave up waiting for %s; stderr: %s", what, stderr.String())
			}
		}
	}
	overview := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	replaceInFile(t, overview, "You are a subagent.", "You are a reloaded subagent.")
	waitFor("the edit to be served", func() bool { return strings.Contains(render(), "You are a reloaded subagent.") })

	os.WriteFile(overview, []byte("{{ if }}"), 0o644)
	waitFor("the failed reload to be reported", func() bool { return strings.Contains(stderr.String(), "reload failed") })
	if !strings.Contains(render(), "You are a reloaded subagent.") {
		t.Error("a broken edit replaced the last good library")
	}
}

// TestServeFinishesInFlightOnSIGTERM runs the real render serve with a
// SQLite audit store and sends it SIGTERM while a request is in flight:
// the server has read the request's headers (it asked for the body with
// 100 Continue) and half of its body. The request is answered, recorded,
// and the process exits 0 after closing the store.
func TestServeFinishesInFlightOnSIGTERM(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "audit.db")
	srv := startServe(t, "--audit", db)
	addr := srv.addr

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(conn, "POST /v1/render/delegation HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", addr, len(validInput))
	r := bufio.NewReader(conn)
	if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 100 Continue") {
		t.Fatalf("the server did not ask for the body: %q", line)
	}
	r.ReadString('\n') // the blank line after 100 Continue
	half := len(validInput) / 2
	conn.Write([]byte(validInput[:half]))

	srv.terminate(t)
	srv.waitLine(t, "shutting down")
	conn.Write([]byte(validInput[half:]))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer to the request in flight: %v", err)
	}
	var res struct{ IDs map[string]string }
	err = json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if resp.StatusCode != 200 || err != nil || res.IDs["delegation_id"] == "" {
		t.Fatalf("the request in flight: %d %v %v", resp.StatusCode, err, res)
	}
	srv.wait(t)
	shown := runCLI(t, "", "audit", "show", res.IDs["delegation_id"], "--audit", db)
	if shown.code != 0 || !strings.Contains(shown.stdout, fixture.Heading(t, "delegation", 0)) {
		t.Errorf("the audit store lacks the prompt: %d %s", shown.code, shown.stderr)
	}
}

// TestReadToken: the token is the file's content without the white space
// around it; an empty file is refused rather than letting every token in.
func TestReadToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, empty := filepath.Join(dir, "token"), filepath.Join(dir, "empty")
	os.WriteFile(good, []byte("  s3cret\n"), 0o600)
	os.WriteFile(empty, []byte("\n"), 0o600)
	if tok, err := readToken(good); tok != "s3cret" || err != nil {
		t.Errorf("%q %v", tok, err)
	}
	if _, err := readToken(empty); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty token file: %v", err)
	}
	if r := runCLI(t, "", "serve", "--token-file", filepath.Join(dir, "missing")); r.code != 2 || !strings.Contains(r.stderr, "token file") {
		t.Errorf("a missing token file: %d %s", r.code, r.stderr)
	}
}

// TestServeHosts: the server answers to the host of --addr, unless it is a
// wildcard address, which names none, and to each --allow-host.
func TestServeHosts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr  string
		allow []string
		want  []string
	}{
		{"127.0.0.1:8080", nil, []string{"127.0.0.1"}},
		{"[::1]:8080", nil, []string{"::1"}},
		{"promptsmith.internal:8080", []string{"api.example"}, []string{"promptsmith.internal", "api.example"}},
		{"0.0.0.0:8080", nil, nil},
		{"[::]:8080", []string{"api.example"}, []string{"api.example"}},
		{":8080", []string{"*"}, []string{"*"}},
	} {
		if got := serveHosts(c.addr, c.allow); !slices.Equal(got, c.want) {
			t.Errorf("--addr %s --allow-host %v: %v, want %v", c.addr, c.allow, got, c.want)
		}
	}
}

// TestServeFlagsDocumented: every flag of render serve has its help, and
// a row in a table of them or a mention in the guides for integrators and
// operators (docs/http-api.md, docs/operations.md).
func TestServeFlagsDocumented(t *testing.T) {
	var doc string
	for _, name := range []string{"../../docs/http-api.md", "../../docs/operations.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc += string(text)
	}
	help := runCLI(t, "", "serve", "--help")
	flags, _, _ := strings.Cut(help.stdout, "Global Flags:")
	_, flags, _ = strings.Cut(flags, "\nFlags:\n")
	flag := regexp.MustCompile(`^\s+(?:-\w, )?--([a-z][a-z-]*)(?: \w+)?\s+(\S.*)?$`)
	n := 0
	for _, line := range strings.Split(flags, "\n") {
		m := flag.FindStringSubmatch(line)
		if m == nil || m[1] == "help" {
			continue
		}
		n++
		if m[2] == "" {
			t.Errorf("--%s has no help", m[1])
		}
		if !strings.Contains(doc, "`--"+m[1]) {
			t.Errorf("--%s is not in docs/http-api.md or docs/operations.md", m[1])
		}
	}
	if n < 10 {
		t.Fatalf("found %d flags in render serve --help:\n%s", n, help.stdout)
	}
}

// TestServeLoopingTemplate: with --render-timeout left to its default, a
// template that loops past --timeout is answered as the template's fault
// (500, kind template), not as a busy server (503, retry); a
// --render-timeout given at or below --timeout is kept, and the log says
// what it does.
func TestServeLoopingTemplate(t *testing.T) {
	t.Parallel()
	dir := fixture.WriteFiles(t, map[string]string{
		"schemas/loop.schema.json":       `{"type": "object"}`,
		"templates/loop/prompt.yaml":     "sections: [body]\n",
		"templates/loop/body.md.tmpl":    `{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}`,
		"templates/loop/examples/a.yaml": "{}\n",
	})
	srv := startServe(t, "--templates", dir, "--timeout", "200ms")
	resp, body := fixture.Do(t, http.DefaultClient, "POST", "http://"+srv.addr+"/v1/render/loop", "{}", "Content-Type", "application/json")
	var e struct{ Error struct{ Kind, Reason string } }
	json.Unmarshal(body, &e)
	if resp.StatusCode != http.StatusInternalServerError || e.Error.Kind != "template" || !strings.Contains(e.Error.Reason, "deadline (200ms)") {
		t.Errorf("a looping template: %d %s", resp.StatusCode, body)
	}
	srv.terminate(t)
	srv.wait(t)

	a := &app{}
	a.limits.Timeout = 3 * time.Second
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	for _, c := range []struct {
		set         bool
		given, want time.Duration
		warns       string
	}{
		{false, 15 * time.Second, 8 * time.Second, ""}, // not given: --timeout and 5s
		{true, 2 * time.Second, 2 * time.Second, "not above --timeout"},
		{true, 3 * time.Second, 3 * time.Second, "not above --timeout"},
		{true, 4 * time.Second, 4 * time.Second, ""},
		{true, 10 * time.Second, 10 * time.Second, "not above --render-timeout"}, // --write-timeout 10s
		{true, 0, 0, "not above --render-timeout"},                               // no limit
	} {
		log.Reset()
		o := serveOptions{renderTimeout: c.given, renderTimeoutGiven: c.set}
		o.http.WriteTimeout = 10 * time.Second
		got := a.renderTimeout(o, logger)
		if warned := strings.Count(log.String(), "level=WARN"); got != c.want || warned > 1 || (warned == 1) != (c.warns != "") || !strings.Contains(log.String(), c.warns) {
			t.Errorf("--render-timeout %s under --timeout 3s: %s, log %q; want %s, a warning %q", c.given, got, log.String(), c.want, c.warns)
		}
	}
}
