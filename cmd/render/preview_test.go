package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// chromiumPath finds Debian's chromium. A test skips without it, but not
// under CI=true, where its absence fails the test: CI installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	fixture.Missing(t, "chromium is not installed: the preview page is tested in a browser (Debian: apt-get install chromium)")
	return ""
}

// browser is headless Chromium driven over the DevTools protocol, on a pipe
// (--remote-debugging-pipe): it reads commands on its fd 3 and writes
// answers and events on its fd 4, each a JSON message ending in a NUL.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File // its fd 3
	out     *os.File // its fd 4
	r       *bufio.Reader
	id      int
	session string
	mu      sync.Mutex
	console []string // what the page logged and threw, for failure messages
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromiumPath(t)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// In one process (--single-process, --no-zygote): the page runs as in a
	// tab, without the helper processes that cost a quarter of a CPU-second.
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--single-process", "--no-zygote", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,900", "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, out: outR, r: bufio.NewReader(outR)}
	t.Cleanup(func() {
		cmdW.Close() // chromium exits when its pipe closes
		fixture.WaitOrKill(cmd, 10*time.Second)
		outR.Close()
	})
	var target struct{ TargetID string }
	b.call("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call("Runtime.enable", nil, nil)
	b.call("Page.enable", nil, nil)
	return b
}

// call sends a command to the page's session (the browser's before there
// is one) and decodes its result into out, reading past the events.
func (b *browser) call(method string, params any, out any) {
	b.t.Helper()
	b.id++
	msg := map[string]any{"id": b.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	data, _ := json.Marshal(msg)
	b.in.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := b.in.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	for {
		b.out.SetReadDeadline(time.Now().Add(30 * time.Second)) // bounds a hung browser only
		line, err := b.r.ReadBytes(0)
		if err != nil {
			b.t.Fatalf("%s: no answer from chromium: %v", method, err)
		}
		var m struct {
			ID     int
			Method string
			Params json.RawMessage
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
			b.t.Fatalf("%s: %v in %q", method, err, line)
		}
		switch m.Method {
		case "Runtime.exceptionThrown", "Runtime.consoleAPICalled":
			b.mu.Lock()
			b.console = append(b.console, m.Method+" "+string(m.Params))
			b.mu.Unlock()
		}
		if m.ID != b.id {
			continue
		}
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": url}, nil)
}

// eval runs a JavaScript expression in the page and decodes its value; it
// reports false when the expression threw (the page is not there yet).
func (b *browser) eval(expr string, out any) bool {
	b.t.Helper()
	var res struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if res.ExceptionDetails != nil {
		return false
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		b.t.Fatalf("%s: %v in %s", expr, err, res.Result.Value)
	}
	return true
}

// screenshot keeps what the page shows as dir/name.png when
// PROMPTSMITH_SCREENSHOTS names a folder dir: for a person to look at.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("PROMPTSMITH_SCREENSHOTS")
	if dir == "" {
		return
	}
	var shot struct{ Data []byte }
	b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), shot.Data, 0o644); err != nil {
		b.t.Error(err)
	}
}

// view is what the preview page shows.
type view struct {
	Rendered string // body's data-rendered: loading, ok or error
	Variant  string
	Example  string
	Prompt   string // the prompt shown as current
	Problem  string // the error shown in its place
	Stale    string // the banner saying the server answers with a last good version
	Checks   string
	Outline  string
	Lint     string
	Live     string
	URL      string
}

const viewJS = `(() => {
  const t = (id) => document.getElementById(id).innerText;
  return { rendered: document.body.dataset.rendered, variant: document.getElementById("variant").value,
    example: document.getElementById("example").value, prompt: document.getElementById("prompt").textContent,
    problem: document.getElementById("problem").style.display === "none" ? "" : t("problem"),
    stale: document.getElementById("stale-banner").hidden ? "" : t("stale-banner"),
    checks: t("checks"), outline: t("outline"), lint: t("lint"), live: t("live"), url: location.search };
})()`

// waitView polls the page until cond holds; the deadline only bounds a
// page that never gets there.
func (b *browser) waitView(what string, cond func(view) bool) view {
	b.t.Helper()
	var v view
	start := time.Now()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b.eval(viewJS, &v) && cond(v) {
			b.t.Logf("%s: %s", what, time.Since(start))
			return v
		}
		if time.Now().After(deadline) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.t.Fatalf("gave up waiting for %s; the page shows %+v\nconsole: %s", what, v, strings.Join(b.console, "\n"))
		}
	}
}

// startInProcessServe runs render serve --templates dir --watch in-process, on a
// free loopback port, until the test ends; it returns the server's URL and
// what the command wrote on stderr.
func startInProcessServe(t *testing.T, dir string) (string, *fixture.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &fixture.SyncBuffer{}
	a := &app{ctx: ctx, stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr}
	root := a.rootCommand()
	// --drain-delay 0, as startServe's: the default kept the test five
	// seconds after its last check, serving no one.
	root.SetArgs([]string{"serve", "--addr", "127.0.0.1:0", "--drain-delay", "0", "--templates", dir, "--watch"})
	root.SetOut(io.Discard)
	root.SetErr(stderr)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("render serve: %v\n%s", err, stderr)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("render serve did not stop within 20s of its context's end with a page open:\n%s", stderr)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := stderr.String()
		if i := strings.Index(out, "url=http://"); i >= 0 { // the serving line, in --log-format text
			return strings.Fields(out[i+len("url="):])[0], stderr
		}
		select {
		case err := <-done:
			t.Fatalf("render serve ended: %v\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("render serve did not start:\n%s", out)
		}
	}
}

// TestPreviewFollowsEdits opens the preview page of render serve --watch in
// headless Chromium and edits the working copy under it: the page opens on
// the first variant's first example, shows each edit without a click,
// shows a broken template's error, with its position and hint, in place
// of the prompt, and the prompt again once it is fixed.
func TestPreviewFollowsEdits(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	dir := fixture.LibraryCopy(t)
	if err := os.CopyFS(filepath.Join(dir, "testdata", "golden"), os.DirFS(filepath.Join("..", "..", "testdata", "golden"))); err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t) // stopped after the server: it stops with the page open
	url, stderr := startInProcessServe(t, dir)
	b.navigate(url + "/")

	v := b.waitView("the first example to render", func(v view) bool { return v.Rendered == "ok" && v.Prompt != "" })
	if v.Variant != "delegation" || v.Example != "crlf-parent" || !strings.HasPrefix(v.Prompt, fixture.Heading(t, "delegation", 0)) {
		t.Errorf("the page opened on %s/%s: %.200q", v.Variant, v.Example, v.Prompt)
	}
	if !strings.Contains(v.URL, "variant=delegation") || !strings.Contains(v.URL, "example=crlf-parent") {
		t.Errorf("the URL does not say what is shown: %q", v.URL)
	}
	if !strings.Contains(v.Checks, "headings") || !strings.Contains(v.Outline, strings.TrimLeft(fixture.Heading(t, "delegation", 0), "# ")) {
		t.Errorf("no checks or outline: %+v", v)
	}
	b.waitView("lint to report", func(v view) bool { return strings.Contains(v.Lint, "no findings") })
	b.waitView("the page to follow the server", func(v view) bool { return strings.HasPrefix(v.Live, "live") })
	b.screenshot("preview-prompt")

	overview := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	good, err := os.ReadFile(overview)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(good, []byte("You are a subagent."), []byte("You are a live-previewed subagent."), 1)
	if err := os.WriteFile(overview, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	b.waitView("the edit to show without a click", func(v view) bool {
		return v.Rendered == "ok" && strings.Contains(v.Prompt, "You are a live-previewed subagent.")
	})

	if err := os.WriteFile(overview, append([]byte("{{ if .parent }}\n"), edited...), 0o644); err != nil {
		t.Fatal(err)
	}
	v = b.waitView("the template error in place of the prompt", func(v view) bool { return v.Rendered == "error" })
	for _, want := range []string{"templates/delegation/overview.md.tmpl:1:1", "is never closed", "add {{ end }} where the if block should end"} {
		if !strings.Contains(v.Problem, want) {
			t.Errorf("the error shown lacks %q:\n%s", want, v.Problem)
		}
	}
	if v.Prompt != "" || strings.Contains(v.Checks, "✓") {
		t.Errorf("the last good prompt or its checks are shown as current beside the error: %+v", v)
	}
	if !strings.Contains(v.Lint, "overview.md.tmpl:1:1") {
		t.Errorf("lint does not report the broken template: %q", v.Lint)
	}
	if strings.Contains(v.Lint+v.Problem, dir) {
		t.Errorf("the page names the server's disk:\n%s\n%s", v.Problem, v.Lint)
	}
	// The server answers with the last good version, and the page says so
	// in a banner: which library, and the file:line that does not load.
	v = b.waitView("the banner of the last good version", func(v view) bool { return v.Stale != "" })
	for _, want := range []string{"Last good version", "delegation with its last good version (library ", "templates/delegation/overview.md.tmpl:1:1 does not load",
		"folded away"} {
		if !strings.Contains(strings.Join(strings.Fields(v.Stale), " "), want) {
			t.Errorf("the banner lacks %q:\n%s", want, v.Stale)
		}
	}
	b.screenshot("preview-error")

	if err := os.WriteFile(overview, good, 0o644); err != nil {
		t.Fatal(err)
	}
	v = b.waitView("the fixed prompt", func(v view) bool { return v.Rendered == "ok" && strings.Contains(v.Prompt, "You are a subagent.") })
	if v.Problem != "" || v.Stale != "" {
		t.Errorf("the error or the banner stays after the fix: %s %s", v.Problem, v.Stale)
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("render serve: %s", stderr)
	}
}
