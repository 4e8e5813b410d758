package server_test

import (
	"context"
	"html"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dumpDOM loads a page in headless Chromium, lets its scripts run, and
// returns the document as they left it. Without chromium the test skips,
// but not under CI=true, where CI installs it.
func dumpDOM(t *testing.T, pageURL string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed, and CI=true: the preview page must be tested in a browser")
		}
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
	return html.UnescapeString(string(out))
}

// text is a document's text without its tags, its head and its script.
func text(dom string) string {
	dom = dom[strings.Index(dom, "<body"):]
	dom = dom[:strings.Index(dom, "<script")]
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(dom, " ")
}

// TestPreviewPage renders the first example on open, a chosen example, and
// a bad input in a real browser, on a server that does not watch its
// library (cmd/render's TestPreviewFollowsEdits runs render serve --watch).
func TestPreviewPage(t *testing.T) {
	ts := newServer(t)
	dom := dumpDOM(t, ts.URL+"/")
	if !strings.Contains(dom, `data-rendered="ok"`) || !strings.Contains(dom, "# Delegation Overview") ||
		!strings.Contains(text(dom), "delegation / crlf-parent · ") {
		t.Errorf("the page does not open on the first example:\n%.3000s", text(dom))
	}

	dom = dumpDOM(t, ts.URL+"/?variant=delegation&example=restricted-tools&tokens=o200k_base&max_tokens=100000")
	plain := text(dom)
	for _, want := range []string{`data-rendered="ok"`, "# Delegation Overview", "delegation_id: dlg-"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	for _, want := range []string{"✓ verbatim parent prompt", "✓ headings", "Tooling Context line", "tokens", "no findings",
		"restricted-tools · ", "not live"} {
		if !strings.Contains(strings.Join(strings.Fields(plain), " "), want) {
			t.Errorf("the rendered page lacks %q:\n%.3000s", want, plain)
		}
	}
	if !regexp.MustCompile(`of 100000 tokens`).MatchString(plain) {
		t.Errorf("no budget report:\n%.3000s", plain)
	}

	bad := url.QueryEscape("parent: {agent_id: a}\n")
	dom = dumpDOM(t, ts.URL+"/?variant=delegation&input="+bad)
	plain = strings.Join(strings.Fields(text(dom)), " ")
	if !strings.Contains(dom, `data-rendered="error"`) || !strings.Contains(plain, "The input is not valid") ||
		!strings.Contains(plain, "/delegation") || !strings.Contains(plain, "required field is missing") ||
		!strings.Contains(plain, `add "delegation"`) {
		t.Errorf("the page does not show the input error:\n%.3000s", plain)
	}
	if regexp.MustCompile(`<pre id="prompt">[^<]`).MatchString(dom) {
		t.Error("a prompt is shown beside the input error")
	}
}
