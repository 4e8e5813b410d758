package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/browser"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

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

// waitView polls the page until cond holds of what it shows.
func waitView(b *browser.Browser, what string, cond func(view) bool) view {
	var v view
	b.Wait(what, func() bool { return b.Eval(viewJS, &v) && cond(v) }, func() string { return fmt.Sprintf("%+v", v) })
	return v
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
	browser.Path(t)
	dir := fixture.LibraryCopy(t)
	if err := os.CopyFS(filepath.Join(dir, "testdata", "golden"), os.DirFS(filepath.Join("..", "..", "testdata", "golden"))); err != nil {
		t.Fatal(err)
	}
	b := browser.Start(t) // stopped after the server: it stops with the page open
	url, stderr := startInProcessServe(t, dir)
	b.Navigate(url + "/")

	v := waitView(b, "the first example to render", func(v view) bool { return v.Rendered == "ok" && v.Prompt != "" })
	if v.Variant != "delegation" || v.Example != "crlf-parent" || !strings.HasPrefix(v.Prompt, fixture.Heading(t, "delegation", 0)) {
		t.Errorf("the page opened on %s/%s: %.200q", v.Variant, v.Example, v.Prompt)
	}
	if !strings.Contains(v.URL, "variant=delegation") || !strings.Contains(v.URL, "example=crlf-parent") {
		t.Errorf("the URL does not say what is shown: %q", v.URL)
	}
	if !strings.Contains(v.Checks, "headings") || !strings.Contains(v.Outline, strings.TrimLeft(fixture.Heading(t, "delegation", 0), "# ")) {
		t.Errorf("no checks or outline: %+v", v)
	}
	waitView(b, "lint to report", func(v view) bool { return strings.Contains(v.Lint, "no findings") })
	waitView(b, "the page to follow the server", func(v view) bool { return strings.HasPrefix(v.Live, "live") })
	b.Screenshot("preview-prompt")

	overview := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	good, err := os.ReadFile(overview)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(good, []byte("You are a subagent."), []byte("You are a live-previewed subagent."), 1)
	if err := os.WriteFile(overview, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	waitView(b, "the edit to show without a click", func(v view) bool {
		return v.Rendered == "ok" && strings.Contains(v.Prompt, "You are a live-previewed subagent.")
	})

	if err := os.WriteFile(overview, append([]byte("{{ if .parent }}\n"), edited...), 0o644); err != nil {
		t.Fatal(err)
	}
	v = waitView(b, "the template error in place of the prompt", func(v view) bool { return v.Rendered == "error" })
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
	v = waitView(b, "the banner of the last good version", func(v view) bool { return v.Stale != "" })
	for _, want := range []string{"Last good version", "delegation with its last good version (library ", "templates/delegation/overview.md.tmpl:1:1 does not load",
		"folded away"} {
		if !strings.Contains(strings.Join(strings.Fields(v.Stale), " "), want) {
			t.Errorf("the banner lacks %q:\n%s", want, v.Stale)
		}
	}
	b.Screenshot("preview-error")

	if err := os.WriteFile(overview, good, 0o644); err != nil {
		t.Fatal(err)
	}
	v = waitView(b, "the fixed prompt", func(v view) bool { return v.Rendered == "ok" && strings.Contains(v.Prompt, "You are a subagent.") })
	if v.Problem != "" || v.Stale != "" {
		t.Errorf("the error or the banner stays after the fix: %s %s", v.Problem, v.Stale)
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("render serve: %s", stderr)
	}
}
