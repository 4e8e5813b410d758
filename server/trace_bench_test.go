package server_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// BenchmarkTracing serves a render in process (no network) without a
// Tracer, as a server without OTEL_* variables runs, and with one that
// samples every span but exports none: what tracing costs a render, and
// that off it costs nothing but a nil check.
func BenchmarkTracing(b *testing.B) {
	lib := fixture.Library(b)
	for _, bc := range []struct {
		name string
		on   bool
	}{{"off", false}, {"on", true}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := server.New(lib)
			if bc.on {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
				defer tp.Shutdown(context.Background())
				srv.Tracer = tp.Tracer("bench")
			}
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest("POST", "/v1/render/delegation", strings.NewReader(input))
				req.Header.Set("Content-Type", "application/json")
				srv.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
