package engine

import "reflect"

// TokenCounter counts the tokens of a text for a model's encoding; package
// tokens provides one.
type TokenCounter interface {
	CountTokens(text string) int
}

// RenderOption changes one render.
type RenderOption func(*renderOptions)

type renderOptions struct {
	maxTokens int
	counter   TokenCounter // what FitTokens counts with
	count     TokenCounter // what CountTokens counts with
	cover     *Coverage    // where Cover records the branches taken
	stages    StageHook    // told of each stage (WithStages)
	noHash    bool         // WithoutLibraryHash
}

func renderOptionsOf(opts []RenderOption) renderOptions {
	var ro renderOptions
	for _, o := range opts {
		o(&ro)
	}
	return ro
}

// FitTokens fits the prompt to at most max tokens as tc counts them, by
// cutting what the variant's budget declares, lowest priority first (see
// package budget). Every check runs on the prompt that fits; a prompt that
// cannot fit even with everything cuttable cut is an input error saying
// how many tokens its minimum needs.
func FitTokens(max int, tc TokenCounter) RenderOption {
	return func(o *renderOptions) { o.maxTokens, o.counter = max, tc }
}

// WithoutLibraryHash leaves the Library and Short of the Result's
// Provenance empty, for a caller that shows only the prompt: the library's
// hash is taken over all its files, which a library loaded from a folder
// (LoadDir) otherwise reads for a render of one variant.
func WithoutLibraryHash() RenderOption {
	return func(o *renderOptions) { o.noHash = true }
}

// CountTokens fills in the Tokens of the Result and of each of its
// sections, as tc counts them. A render counts only when asked to: package
// tokens counts at tens of megabytes a second, but a counter must load its
// encoding first, which a render that is not asked to count never pays.
func CountTokens(tc TokenCounter) RenderOption {
	return func(o *renderOptions) { o.count = tc }
}

// sameCounter reports whether a and b are the same counter: the same
// pointer, which is what package tokens gives. Other counters are taken
// to differ (comparing them could panic).
func sameCounter(a, b TokenCounter) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) || reflect.TypeOf(a).Kind() != reflect.Pointer {
		return false
	}
	return a == b
}
