package funcs

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// Limits bound what a template may build, so that no template, however
// written, can exhaust the memory of the process that renders it.
type Limits struct {
	// ListItems is the longest list until, untilStep and seq may build.
	ListItems int
	// OutputBytes is the longest text repeat may build.
	OutputBytes int
}

// Run is one execution of a variant's templates. The engine gives each
// render a Run of its own; its context ends the work once the render's
// caller gives up or its deadline passes, even in a loop that writes
// nothing.
type Run struct {
	Ctx context.Context
	// includes is how deeply includes nest at the moment.
	includes int
	// calls is how many templates execute at the moment, one inside the
	// other, through template and include together.
	calls int
	// frames is how much stack those calls hold, in levels of nesting
	// (Enter's weight).
	frames int
	// built is how many bytes of text the run's functions have built
	// (charge).
	built float64
}

// builtScale is how many times the output limit of text a render's
// functions may build in all. Each text is bounded by the output limit,
// each list by the list limit and a list of lists by what it would print
// (nested); a list or object of texts is not, and a template that keeps
// what it builds ({{ $l = append $l (repeat 3000000 "x") }} in a loop)
// would hold all of it, each text within the limit, until the process has
// no memory left. Counting every text built, kept or not, bounds that.
const builtScale = 4

// charge counts n bytes of text a function of the run built, and refuses
// it once the run's functions together have built more than builtScale
// times the output limit. Outside a render (no Run) nothing is counted.
func (env *Env) charge(fn string, n float64) error {
	limit := builtScale * float64(env.Limits.OutputBytes)
	if env.Run == nil || limit <= 0 {
		return nil
	}
	env.Run.built += n
	if env.Run.built > limit {
		return fmt.Errorf("%s would bring the text this render's functions have built to %.0f bytes, over the limit of %.0f, %d times the output limit; a loop that builds texts and keeps them (append, set) would hold them all (the limit follows the engine's OutputBytes, render's --max-output)", fn, env.Run.built, limit, builtScale)
	}
	return nil
}

// Begin starts an execution of the run's templates: the text its
// functions build is counted anew. A fit executes the templates once for
// each number of cuts it tries, and each is a render of its own.
func (r *Run) Begin() {
	if r != nil {
		r.built = 0
	}
}

// Including reports whether a template of the run executes inside include,
// which writes into a text of its own rather than into the render's output.
func (r *Run) Including() bool { return r != nil && r.includes > 0 }

// check reports whether the run may go on.
func (env *Env) check() error {
	if env.Run == nil || env.Run.Ctx == nil {
		return nil
	}
	return env.Run.Ctx.Err()
}

// items refuses a list of n items over the limit.
func (env *Env) items(fn string, n float64) error {
	return env.within(fn, n, env.Limits.ListItems, "%s would build a list of %.0f items, over the limit of %d; a prompt never needs that many (the limit is the engine's ListItems, render's --max-list)")
}

// within refuses n over limit (none when 0) with the message format,
// given fn, n and limit; a render that has ended is refused first, so
// that a loop calling a function ends with its render.
func (env *Env) within(fn string, n float64, limit int, format string) error {
	if err := env.check(); err != nil {
		return err
	}
	if limit > 0 && n > float64(limit) {
		return fmt.Errorf(format, fn, n, limit)
	}
	return nil
}

// bounded wraps sprig's list and text builders with the limits: each counts
// what it would build before building it.
func (env *Env) bounded(sprig map[string]any) map[string]any {
	until := sprig["until"].(func(int) []int)
	untilStep := sprig["untilStep"].(func(int, int, int) []int)
	seq := sprig["seq"].(func(...int) string)
	return map[string]any{
		"until": func(n int) ([]int, error) {
			if err := env.items("until", math.Abs(float64(n))); err != nil {
				return nil, err
			}
			return until(n), nil
		},
		"untilStep": func(start, stop, step int) ([]int, error) {
			if err := env.items("untilStep", steps(start, stop, step)); err != nil {
				return nil, err
			}
			return untilStep(start, stop, step), nil
		},
		"seq": func(params ...int) (string, error) {
			n := 0.0
			switch len(params) {
			case 1:
				n = math.Abs(float64(params[0])) + 1
			case 2:
				n = math.Abs(float64(params[1])-float64(params[0])) + 1
			case 3:
				n = steps(params[0], params[2], params[1]) + 1
			}
			if err := env.items("seq", n); err != nil {
				return "", err
			}
			out := seq(params...)
			return out, env.charge("seq", float64(len(out)))
		},
		"repeat": func(count int, s string) (string, error) {
			if err := env.check(); err != nil {
				return "", err
			}
			if count < 0 {
				return "", fmt.Errorf("repeat %d: the count must not be negative", count)
			}
			if err := env.text("repeat", float64(count)*float64(len(s))); err != nil {
				return "", err
			}
			return strings.Repeat(s, count), nil
		},
	}
}

// steps counts the items from start toward stop by step.
func steps(start, stop, step int) float64 {
	if step == 0 || (stop > start) != (step > 0) {
		return 0
	}
	return math.Ceil(math.Abs(float64(stop)-float64(start)) / math.Abs(float64(step)))
}
