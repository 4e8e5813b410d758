package server_test

import (
	"html"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/browser"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// pageDOM opens pageURL in b's tab and returns its document once the page
// has rendered (its body's data-rendered is ok or error, which it sets
// when the render, lint and golden answers are in) and knows whether it
// is live. The tab goes through about:blank first, so that nothing of the
// page before is read.
func pageDOM(b *browser.Browser, pageURL string) string {
	shows := func() string {
		var s string
		b.Eval(`location.href + ", rendered " + (document.body && document.body.dataset.rendered) + ", " +
			(document.getElementById("live") || {}).textContent`, &s)
		return s
	}
	var blank bool
	b.Navigate("about:blank")
	b.Wait("about:blank", func() bool { return b.Eval(`location.href === "about:blank"`, &blank) && blank }, shows)
	b.Navigate(pageURL)
	var dom string
	b.Wait(pageURL, func() bool {
		return b.Eval(`location.protocol === "http:" && document.body.dataset.rendered !== "loading" &&
			document.getElementById("live").textContent !== "connecting…" ? document.documentElement.outerHTML : ""`, &dom) && dom != ""
	}, shows)
	return html.UnescapeString(dom)
}

// text is a document's text without its tags, its head and its script.
func text(dom string) string {
	dom = dom[strings.Index(dom, "<body"):]
	dom = dom[:strings.Index(dom, "<script")]
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(dom, " ")
}

// TestPreviewPage renders the first example on open, a chosen example, a
// bad input, and a variant answered from its last good version
// (previewStale), in one real browser, on servers that do not watch their
// library (cmd/render's TestPreviewFollowsEdits runs render serve --watch).
func TestPreviewPage(t *testing.T) {
	t.Parallel()
	b := browser.Start(t)
	ts := newServer(t)
	dom := pageDOM(b, ts.URL+"/")
	if !strings.Contains(dom, `data-rendered="ok"`) || !strings.Contains(dom, fixture.Heading(t, "delegation", 0)) ||
		!strings.Contains(text(dom), "delegation / crlf-parent · ") {
		t.Errorf("the page does not open on the first example:\n%.3000s", text(dom))
	}
	if strings.Contains(text(dom), "Last good version") || strings.Contains(dom, `data-stale="true"`) {
		t.Errorf("a healthy variant is shown as stale:\n%.3000s", text(dom))
	}

	dom = pageDOM(b, ts.URL+"/?variant=delegation&example=restricted-tools&tokens=o200k_base&max_tokens=100000")
	plain := text(dom)
	for _, want := range []string{`data-rendered="ok"`, fixture.Heading(t, "delegation", 0), "delegation_id: dlg-"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	for _, want := range []string{"✓ verbatim parent prompt", "✓ headings", strings.TrimLeft(fixture.Heading(t, "delegation", 4), "# ") + " line", "tokens", "no findings",
		"restricted-tools · ", "not live"} {
		if !strings.Contains(strings.Join(strings.Fields(plain), " "), want) {
			t.Errorf("the rendered page lacks %q:\n%.3000s", want, plain)
		}
	}
	if !regexp.MustCompile(`of 100000 tokens`).MatchString(plain) {
		t.Errorf("no budget report:\n%.3000s", plain)
	}

	bad := url.QueryEscape("parent: {agent_id: a}\n")
	dom = pageDOM(b, ts.URL+"/?variant=delegation&input="+bad)
	plain = strings.Join(strings.Fields(text(dom)), " ")
	if !strings.Contains(dom, `data-rendered="error"`) || !strings.Contains(plain, "The input is not valid") ||
		!strings.Contains(plain, "/delegation") || !strings.Contains(plain, "required field is missing") ||
		!strings.Contains(plain, `add "delegation"`) {
		t.Errorf("the page does not show the input error:\n%.3000s", plain)
	}
	if regexp.MustCompile(`<pre id="prompt">[^<]`).MatchString(dom) {
		t.Error("a prompt is shown beside the input error")
	}
	previewStale(t, b)
}

// previewStale: a variant broken on disk is answered from its last good
// version; the page says so in a banner naming the library that answered
// and the file:line that does not load, and keeps that prompt folded
// away, not shown as current.
func previewStale(t *testing.T, b *browser.Browser) {
	dir := workingCopy(t)
	good := fixture.LoadDir(t, dir)
	os.WriteFile(filepath.Join(dir, "templates", "delegation", "overview.md.tmpl"), []byte("{{ if .parent }}\n"), 0o644)
	broken := fixture.LoadDir(t, dir)
	srv := server.New(good)
	srv.Swap(broken.Fallback(good))
	ts := httptest.NewServer(srv)
	defer ts.Close()

	dom := pageDOM(b, ts.URL+"/?variant=delegation&example=minimal")
	banner := regexp.MustCompile(`(?s)<div id="stale-banner"[^>]*>(.*?)</div>`).FindStringSubmatch(dom)
	if banner == nil || strings.Contains(banner[0], "hidden") || !strings.Contains(dom, `data-stale="true"`) {
		t.Fatalf("no stale banner:\n%.3000s", text(dom))
	}
	plain := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(banner[1], " ")), " ")
	for _, want := range []string{"Last good version", "delegation with its last good version (library " + good.Provenance().Short + ")",
		"templates/delegation/overview.md.tmpl:1:1 does not load", "folded away"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the banner lacks %q: %s", want, plain)
		}
	}
	if !strings.Contains(dom, `data-rendered="error"`) || regexp.MustCompile(`<pre id="prompt">[^<]`).MatchString(dom) ||
		!strings.Contains(text(dom), "The last good version's prompt") {
		t.Errorf("the last good prompt is shown as current, or not kept:\n%.3000s", text(dom))
	}
	if strings.Contains(dom, dir) {
		t.Error("the page names the server's disk")
	}
}
