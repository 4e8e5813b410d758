package engine

import "context"

// The stages of a render, as a StageHook is told them.
const (
	StageDecode   = "decode"   // reading the input document
	StageValidate = "validate" // the schema, verbatim fields and input rules
	StageExecute  = "execute"  // running the templates (without a budget)
	StageFit      = "fit"      // fitting a budget: the renders of the search
	StageChecks   = "checks"   // the manifest's checks on the prompt
)

// StageHook is called as a render enters each stage, with the render's
// context; it returns the context the stage runs under and a function the
// render calls with the stage's error when it leaves it. It lets a caller
// (a tracer: the server's OpenTelemetry spans) see the stages without the
// engine knowing of it.
type StageHook func(ctx context.Context, stage string) (context.Context, func(error))

// WithStages calls h around each stage of the render.
func WithStages(h StageHook) RenderOption {
	return func(o *renderOptions) { o.stages = h }
}

// stage enters a stage under the render's hook, when it has one.
func (ro renderOptions) stage(ctx context.Context, name string) (context.Context, func(error)) {
	if ro.stages == nil {
		return ctx, func(error) {}
	}
	return ro.stages(ctx, name)
}
