package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// otlpReceiver is an OTLP/HTTP trace receiver of the test's own: it
// decodes each export request's protobuf and keeps its spans.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	attrs map[string]string // the resource's string attributes
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.GetResource().GetAttributes() {
			o.attrs[a.Key] = a.GetValue().GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			o.spans = append(o.spans, ss.Spans...)
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestTraces: configured by the OTEL_* environment as an operator would,
// render serve's server sends a request's spans to a real OTLP/HTTP
// receiver: under the caller's trace id, the request span the child of its
// traceparent, the render span under the request, and the stages and the
// audit write under the render.
func TestTraces(t *testing.T) {
	recv := &otlpReceiver{attrs: map[string]string{}}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "promptsmith-test")
	t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_always_on")
	tracer, shutdown, err := tracingFromEnv(context.Background())
	if err != nil || tracer == nil {
		t.Fatalf("tracing from the environment: %v %v", tracer, err)
	}
	srv := server.New(fixture.Small(t))
	srv.Tracer = tracer
	store, err := audit.Open(context.Background(), filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv.Audit = store
	var log fixture.SyncBuffer
	srv.Logger = slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	traceparent := "00-" + traceID + "-" + parentID + "-01"
	resp, body := fixture.Do(t, ts.Client(), "POST", ts.URL+"/v1/render/note", `{"title": "T", "body": "B"}`,
		"Content-Type", "application/json", "traceparent", traceparent)
	if resp.StatusCode != 200 {
		t.Fatalf("render: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/livez", "/readyz", "/healthz", "/metrics"} { // not traced
		fixture.Do(t, ts.Client(), "GET", ts.URL+path, "", "traceparent", traceparent)
	}
	if err := shutdown(context.Background()); err != nil { // flushes the batch
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	byName := map[string]*tracepb.Span{}
	for _, s := range recv.spans {
		if hex.EncodeToString(s.TraceId) != traceID {
			t.Errorf("span %s is in trace %x, not the caller's", s.Name, s.TraceId)
		}
		byName[s.Name] = s
	}
	parentOf := map[string]string{
		"POST /v1/render/{variant}": parentID,
		"render":                    "POST /v1/render/{variant}",
		"decode":                    "render",
		"validate":                  "render",
		"execute":                   "render",
		"checks":                    "render",
		"audit write":               "render",
	}
	for name, parent := range parentOf {
		s := byName[name]
		if s == nil {
			t.Errorf("no span %q among %d", name, len(recv.spans))
			continue
		}
		want := parent
		if p := byName[parent]; p != nil {
			want = hex.EncodeToString(p.SpanId)
		}
		if got := hex.EncodeToString(s.ParentSpanId); got != want {
			t.Errorf("span %q: parent %s, want %s (%s)", name, got, want, parent)
		}
	}
	if len(recv.spans) != len(parentOf) {
		t.Errorf("%d spans, want %d", len(recv.spans), len(parentOf))
	}
	// The render's log line names its trace and its request span, and its
	// duration in milliseconds; the probes' and the scrape's name none.
	for line := range strings.Lines(log.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if _, ok := rec["duration_ms"].(float64); !ok || rec["duration"] != nil {
			t.Errorf("a request line without duration_ms: %s", line)
		}
		if rec["route"] == "POST /v1/render/{variant}" {
			if span := byName["POST /v1/render/{variant}"]; span == nil || rec["trace_id"] != traceID || rec["span_id"] != hex.EncodeToString(span.SpanId) {
				t.Errorf("the render's line does not name its trace and span: %s", line)
			}
		} else if rec["trace_id"] != nil || rec["span_id"] != nil {
			t.Errorf("an untraced request's line names a trace: %s", line)
		}
	}
	if recv.attrs["service.name"] != "promptsmith-test" {
		t.Errorf("resource %v: OTEL_SERVICE_NAME not read", recv.attrs)
	}
}

// TestTracingOff: with no OTEL_* variable, or with them saying none, there
// is no tracer.
func TestTracingOff(t *testing.T) {
	for _, env := range [][2]string{{"", ""}, {"OTEL_SDK_DISABLED", "true"}, {"OTEL_TRACES_EXPORTER", "none"}} {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
		if env[0] != "" {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv(env[0], env[1])
		}
		if tracer, _, err := tracingFromEnv(context.Background()); tracer != nil || err != nil {
			t.Errorf("%v: tracer %v, %v", env, tracer, err)
		}
	}
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, _, err := tracingFromEnv(context.Background()); err == nil {
		t.Error("grpc taken though not supported")
	}
}
