package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestServeLogIsJSON: every line render serve --log-format json writes
// is one JSON object, from its first to its last, OpenTelemetry's own
// errors included (an OTLP receiver that refuses every export), and its
// request lines give their duration in milliseconds and, when traced,
// their trace and span ids.
func TestServeLogIsJSON(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "refused by the test", http.StatusBadRequest) // not retried: the exporter reports it at once
	}))
	defer refusing.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", refusing.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr fixture.SyncBuffer
	cmd := renderCommand(t, ctx, "serve", "--addr", "127.0.0.1:0", "--drain-delay", "0", "--log-format", "json")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor := func(what string) string {
		t.Helper()
		for ctx.Err() == nil {
			if out := stderr.String(); strings.Contains(out, what) {
				return out
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("render serve never logged %q:\n%s", what, stderr.String())
		return ""
	}
	out := waitFor(`"url":"http://`)
	addr := out[strings.Index(out, `"url":"http://`)+len(`"url":"http://`):]
	addr = addr[:strings.IndexByte(addr, '"')]
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/render/delegation?max_tokens=x", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(`"msg":"opentelemetry"`) // the refused export
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("render serve: %v\n%s", err, stderr.String())
	}
	var request map[string]any
	for line := range strings.Lines(stderr.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a line that is not JSON: %q", line)
			continue
		}
		if rec["msg"] == "request" {
			request = rec
		}
	}
	if request == nil || request["trace_id"] != traceID || request["span_id"] == nil || request["duration_ms"] == nil {
		t.Errorf("the request's line: %v", request)
	}
}
