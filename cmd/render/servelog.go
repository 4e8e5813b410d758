package main

import (
	"io"
	"log/slog"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
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
