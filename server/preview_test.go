package server_test

import (
	"context"
	"html"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// dumpDOM loads a page in headless Chromium, lets its scripts run, and
// returns the document as they left it.
func dumpDOM(t *testing.T, pageURL string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (.ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=15000", "--dump-dom", pageURL)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return string(out)
}

// TestPreviewPage renders an example and a bad input in a real browser.
func TestPreviewPage(t *testing.T) {
	ts := newServer(t)
	dom := dumpDOM(t, ts.URL+"/?variant=delegation&example=restricted-tools")
	for _, want := range []string{`data-rendered="ok"`, "# Delegation Overview", "ok verbatim parent prompt", "ok headings", "delegation_id: dlg-", "Tooling Context (line"} {
		if !strings.Contains(html.UnescapeString(dom), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	bad := url.QueryEscape("parent: {agent_id: a}\n")
	dom = html.UnescapeString(dumpDOM(t, ts.URL+"/?variant=delegation&input="+bad))
	if !strings.Contains(dom, `data-rendered="error"`) || !strings.Contains(dom, "/delegation: required field is missing") ||
		!strings.Contains(dom, "hint: add \"delegation\"") {
		t.Errorf("the page does not show the input error:\n%.2000s", dom[strings.Index(dom, "<body"):])
	}
}
