package main

import (
	"io"
	"log"
	"log/slog"
	"strings"

	"github.com/go-logr/logr"
	"github.com/promptsmith/promptsmith/engine"
	"go.opentelemetry.io/otel"
)

// serveLogger is the one logger of a render serve process: every line it
// writes after it starts (serving, reloads, each request, shutting down)
// is a record of it, in one format, --log-format json or text.
func serveLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "text", "":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return nil, &engine.Error{Kind: engine.KindUsage, Flag: "--log-format", Reason: "unknown log format " + format + ": choose json or text",
		Hints: []string{"json for a log collector, text for a person reading the terminal"}}
}

// logLines is a writer that logs each line written to it as a record of
// its logger at INFO, without the "render: " the command's notes begin
// with: what render serve says before it serves, in its log's format.
type logLines struct{ logger *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		if line = strings.TrimSpace(strings.TrimPrefix(line, "render: ")); line != "" {
			l.logger.Info(line)
		}
	}
	return len(p), nil
}

// logEverythingTo makes the process's other writers of log lines write
// through logger, in its format: the standard library's log package
// (slog.SetDefault routes it), OpenTelemetry's error handler (an exporter
// that cannot send its spans) and its internal logger, which otherwise
// print plain text to stderr, a second format on the stream a log
// collector reads as JSON. These are process-wide settings of those
// packages, not state of the project's own: render serve sets them once,
// in its command, before it serves; nothing else in the module does.
func logEverythingTo(logger *slog.Logger) {
	slog.SetDefault(logger)
	log.SetFlags(0) // the record has its time
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Error("opentelemetry", "error", err.Error())
	}))
	otel.SetLogger(logr.FromSlogHandler(logger.Handler()))
}
