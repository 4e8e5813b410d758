package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP exporter is the command's: package server takes a Tracer (its
// Tracer field), and a Go program that embeds it brings its own.

// tracingFromEnv is the Tracer the standard OpenTelemetry environment
// variables describe, and the function that flushes and stops it (call it
// after the server has stopped). Tracing is on when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set,
// or OTEL_TRACES_EXPORTER is otlp; it is off (a nil Tracer, which costs
// the server nothing) when none is, or OTEL_SDK_DISABLED is true, or
// OTEL_TRACES_EXPORTER is none. Spans go to an OTLP/HTTP (protobuf)
// exporter, which reads the endpoint, headers, timeout and certificates
// from the OTEL_EXPORTER_OTLP_* variables; the batch processor reads
// OTEL_BSP_*, the sampler OTEL_TRACES_SAMPLER(_ARG), the resource
// OTEL_SERVICE_NAME (promptsmith by default) and OTEL_RESOURCE_ATTRIBUTES.
func tracingFromEnv(ctx context.Context) (trace.Tracer, func(context.Context) error, error) {
	off := func(context.Context) error { return nil }
	exporter := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")))
	endpoint := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") + os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	switch {
	case strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true"), exporter == "none":
		return nil, off, nil
	case exporter != "" && exporter != "otlp":
		return nil, off, otelEnvError("OTEL_TRACES_EXPORTER", fmt.Sprintf("trace exporter %q is not supported: only otlp (or none)", exporter))
	case exporter == "" && endpoint == "":
		return nil, off, nil
	}
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if protocol != "" && protocol != "http/protobuf" {
		return nil, off, otelEnvError("OTEL_EXPORTER_OTLP_PROTOCOL", fmt.Sprintf("OTLP protocol %q is not supported: only http/protobuf (a collector's port 4318)", protocol))
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, off, otelEnvError("OTEL_EXPORTER_OTLP_ENDPOINT", "cannot make the OTLP exporter: "+err.Error())
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("promptsmith"), semconv.ServiceVersion(engine.Version())),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, off, otelEnvError("OTEL_RESOURCE_ATTRIBUTES", "cannot read the resource: "+err.Error())
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp.Tracer("github.com/promptsmith/promptsmith/server"), tp.Shutdown, nil
}

// otelEnvError is the error of an OTEL_ variable render serve cannot follow.
func otelEnvError(name, reason string) error {
	return &engine.Error{Kind: engine.KindUsage, Path: name, Reason: reason,
		Hints: []string{"see the OpenTelemetry environment variables in docs/operations.md, Running in production"}}
}
