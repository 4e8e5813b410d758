package main

import (
	"log/slog"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/tokens"
)

// library loads --templates DIR when given, else the embedded library.
func (a *app) library() (*engine.Library, error) {
	var opts []engine.Option
	if a.limits != engine.DefaultLimits() {
		opts = append(opts, engine.WithLimits(a.limits))
	}
	if a.log {
		opts = append(opts, engine.WithLogger(slog.New(slog.NewJSONHandler(a.stderr, nil))))
	}
	if a.tokens != "" {
		tc, err := tokens.New(a.tokens)
		if err != nil {
			return nil, &cliError{Kind: engine.KindUsage, Flag: "--tokens", Reason: err.Error(), err: err}
		}
		opts = append(opts, engine.WithTokenCounter(tc))
	}
	if a.templates != "" {
		return engine.LoadDir(a.templates, opts...)
	}
	if len(opts) == 0 {
		return promptsmith.Library()
	}
	return engine.Load(promptsmith.FS(), opts...)
}

// variant loads the library and returns it with one of its variants.
func (a *app) variant(name string) (*engine.Library, *engine.Variant, error) {
	lib, err := a.library()
	if err != nil {
		return nil, nil, err
	}
	v, err := lib.Variant(name)
	return lib, v, err
}
