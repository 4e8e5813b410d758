package funcs

import (
	"fmt"
	"text/template"
)

// MaxCallDepth is how many templates may execute one inside the other,
// through template and include together. text/template counts its own
// depth (to 100000) but starts again at every include, and each level
// costs stack in proportion to how deeply the call sits in its template:
// a template that calls itself through both, or from inside many nested
// blocks, passes the goroutine's stack limit, which ends the process
// with no error to recover. No prompt nests its templates this deep.
const MaxCallDepth = 1000

// maxFrames bounds the stack the calls of a render hold, in levels of
// nesting (see Enter): at most a few kilobytes each (measured: 2.6 KB for
// a level of parenthesized pipeline), a few hundred megabytes in all, well
// under the goroutine's stack limit of 1 GB.
const maxFrames = 50_000

// Names of the functions the engine calls from the actions it adds to the
// copies of a variant's trees that renders execute (engine's instrument).
// They cannot clash with a function of the catalog: those are lower case.
const (
	EnterFunc = "PromptsmithEnter"
	LeaveFunc = "PromptsmithLeave"
	TickFunc  = "PromptsmithTick"
)

// LimitError is a template that passed a limit of the render's: its Hint
// says what to do.
type LimitError struct {
	Msg, Hint string
}

func (e *LimitError) Error() string { return e.Msg }

// Bounds are the functions behind the actions the engine adds to the
// trees it executes: Enter at the start of every template and Leave at
// its end, Tick at the start of every range's body. They write nothing.
func (env *Env) Bounds() template.FuncMap {
	return template.FuncMap{EnterFunc: env.enter, LeaveFunc: env.leave, TickFunc: env.tick}
}

// enter counts a template that starts executing, whose nesting (the
// deepest its blocks and parenthesized pipelines go, plus the frames of
// the call itself) is weight, and refuses it past MaxCallDepth or
// maxFrames. It checks the run too: a template that calls itself twice
// ends at the deadline however many calls that makes.
func (env *Env) enter(name string, weight int) (string, error) {
	r := env.Run
	if r == nil {
		return "", nil
	}
	if r.Ctx != nil {
		if err := r.Ctx.Err(); err != nil {
			return "", err
		}
	}
	if r.calls >= MaxCallDepth || r.frames+weight > maxFrames {
		return "", &LimitError{
			Msg: fmt.Sprintf("template %q: templates call each other too deeply, more than %d levels through template and include (or a stack of %d nested blocks)",
				name, MaxCallDepth, maxFrames),
			Hint: "a template calls itself, through template or include, without an end: give the recursion a condition that stops it within a few hundred levels",
		}
	}
	r.calls++
	r.frames += weight
	return "", nil
}

// leave counts a template that ended.
func (env *Env) leave(weight int) (string, error) {
	if r := env.Run; r != nil {
		r.calls--
		r.frames -= weight
	}
	return "", nil
}

// tick is every iteration of a range: a range over a list built before,
// whose body calls nothing, would otherwise never see the deadline.
func (env *Env) tick() (string, error) {
	return "", env.check()
}
