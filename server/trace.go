package server

import (
	"context"
	"net/http"

	"github.com/promptsmith/promptsmith/engine"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The server's traces: a span for each request (the route and status), a
// render span under it, and under that a span for each stage of the
// engine (decode, validate, execute or fit, checks; engine.WithStages)
// and the audit write. An incoming W3C traceparent is the request span's
// parent. Without a Tracer nothing is traced, nor allocated for it.

// tracePropagator reads the W3C trace context (traceparent, tracestate)
// and baggage of a request.
func tracePropagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// requestSpan starts a request's span, the child of the traceparent it
// carries; end ends it with its route and status. Probes and scrapes are
// not traced: a load balancer probing every second and Prometheus
// scraping would make most of the traces, and say nothing of renders.
func (s *Server) requestSpan(r *http.Request) (context.Context, func(route string, code int)) {
	if s.Tracer == nil || isProbe(r.URL.Path) || r.URL.Path == "/metrics" {
		return r.Context(), func(string, int) {}
	}
	ctx := tracePropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := s.Tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path),
			attribute.String("promptsmith.request_id", RequestID(r.Context()))))
	return ctx, func(route string, code int) {
		if route != "" {
			span.SetName(route) // "POST /v1/render/{variant}"
			span.SetAttributes(attribute.String("http.route", route))
		}
		span.SetAttributes(attribute.Int("http.response.status_code", code))
		if code >= 500 {
			span.SetStatus(codes.Error, http.StatusText(code))
		}
		span.End()
	}
}

// span starts a span named name under ctx's, when tracing is on; end ends
// it, marking err.
func (s *Server) span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, func(error)) {
	if s.Tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := s.Tracer.Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, engine.AsError(err).Reason)
		}
		span.End()
	}
}

// stageSpans is the engine's stage hook that makes a span of each stage,
// nil without tracing.
func (s *Server) stageSpans() []engine.RenderOption {
	if s.Tracer == nil {
		return nil
	}
	return []engine.RenderOption{engine.WithStages(func(ctx context.Context, stage string) (context.Context, func(error)) {
		return s.span(ctx, stage)
	})}
}
