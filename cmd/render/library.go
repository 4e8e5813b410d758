package main

import (
	"log/slog"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
)

// library loads --templates DIR when given, else the embedded library.
func (a *app) library() (*engine.Library, error) {
	var opts []engine.Option
	if a.log {
		opts = append(opts, engine.WithLogger(slog.New(slog.NewJSONHandler(a.stderr, nil))))
	}
	if a.templates != "" {
		return engine.LoadDir(a.templates, opts...)
	}
	if len(opts) == 0 {
		return promptsmith.Library()
	}
	return engine.Load(promptsmith.FS(), opts...)
}
