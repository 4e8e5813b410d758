// Package browser drives headless Chromium over the DevTools protocol, for
// the tests of the preview page: one browser, started once by a test, loads
// each page the test opens, as a person's tab would.
package browser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// Path finds Debian's chromium. A test stops without it, skipped, but not
// under CI=true, where its absence fails the test: CI installs it.
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	fixture.Missing(t, "chromium is not installed: the preview page is tested in a browser (Debian: apt-get install chromium)")
	return ""
}

// Browser is headless Chromium driven on a pipe (--remote-debugging-pipe):
// it reads commands on its fd 3 and writes answers and events on its fd 4,
// each a JSON message ending in a NUL. Its methods are the test's, called
// from the test's goroutine.
type Browser struct {
	t       testing.TB
	in      *os.File // its fd 3
	out     *os.File // its fd 4
	r       *bufio.Reader
	id      int
	session string
	mu      sync.Mutex
	console []string // what the page logged and threw, for failure messages
}

// Start starts Chromium with one tab open on about:blank, stopped when the
// test ends.
func Start(t testing.TB) *Browser {
	t.Helper()
	bin := Path(t)
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
	b := &Browser{t: t, in: cmdW, out: outR, r: bufio.NewReader(outR)}
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
func (b *Browser) call(method string, params any, out any) {
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

// Navigate opens url in the tab.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": url}, nil)
}

// Eval runs a JavaScript expression in the page and decodes its value; it
// reports false when the expression threw (the page is not there yet).
func (b *Browser) Eval(expr string, out any) bool {
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

// Wait polls done until it holds, and fails the test, naming what it
// waited for and what the page logged, when it does not within 20 s: the
// deadline only bounds a page that never gets there.
func (b *Browser) Wait(what string, done func() bool, shows func() string) {
	b.t.Helper()
	start := time.Now()
	for deadline := start.Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if done() {
			b.t.Logf("%s: %s", what, time.Since(start))
			return
		}
		if time.Now().After(deadline) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.t.Fatalf("gave up waiting for %s; the page shows %s\nconsole: %s", what, shows(), strings.Join(b.console, "\n"))
		}
	}
}

// Screenshot keeps what the page shows as dir/name.png when
// PROMPTSMITH_SCREENSHOTS names a folder dir: for a person to look at.
func (b *Browser) Screenshot(name string) {
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
