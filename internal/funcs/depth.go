package funcs

import (
	"cmp"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
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

// Names of the functions the engine calls from the trees it executes
// (engine's bound). They cannot clash with a function of the catalog:
// those are lower case.
const (
	// EnterFunc and LeaveFunc, followed by a template's number in the
	// set, start and end that template.
	EnterFunc = "PromptsmithEnter"
	LeaveFunc = "PromptsmithLeave"
	// SeqFunc and Seq2Func, followed by the range's number, are the last
	// command of every range's pipeline: they check the run's deadline,
	// and give what a long range iterates over as an iterator that checks
	// it as it goes.
	SeqFunc  = "PromptsmithSeq"
	Seq2Func = "PromptsmithSeq2"
)

// LimitError is a template that passed a limit of the render's: its Hint
// says what to do.
type LimitError struct {
	Msg, Hint string
}

func (e *LimitError) Error() string { return e.Msg }

// Bounds are the functions behind the actions the engine adds to the
// trees it executes: for each template of names, EnterFunc and LeaveFunc
// followed by its index, which take no arguments (a call with arguments
// costs text/template an allocation per argument), and for each range
// whose body weighs ranges[i] (its nodes), SeqFunc and Seq2Func followed
// by i. They write nothing.
func (env *Env) Bounds(names []string, weights []int, ranges []Range) template.FuncMap {
	m := template.FuncMap{}
	for i, r := range ranges {
		m[SeqFunc+strconv.Itoa(i)] = func(v any) (any, error) { return env.seq(v, r, false) }
		m[Seq2Func+strconv.Itoa(i)] = func(v any) (any, error) { return env.seq(v, r, true) }
	}
	for i, name := range names {
		weight := weights[i]
		m[EnterFunc+strconv.Itoa(i)] = func() (string, error) { return env.enter(name, weight) }
		m[LeaveFunc+strconv.Itoa(i)] = func() string { env.leave(weight); return "" }
	}
	return m
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
	if weight > maxFrames {
		return "", &LimitError{
			Msg: fmt.Sprintf("template %q: its blocks (if, with, range) and parenthesized pipelines nest too deeply, more than a stack of %d levels (a range counts as several)",
				name, maxFrames),
			Hint: "nest blocks a few levels deep, not thousands: move what repeats into a partial called in a range",
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
func (env *Env) leave(weight int) {
	if r := env.Run; r != nil {
		r.calls--
		r.frames -= weight
	}
}

// tickEvery is how many iterations of a range pass between two looks at
// the run's deadline.
const tickEvery = 64

// ticker looks at the run's deadline every tickEvery calls.
type ticker struct {
	env *Env
	n   int
}

// stop ends the execution once the run may not go on: text/template
// turns a panic of an ExecError into the error its Execute returns, and
// a range has no other way to fail.
func (t *ticker) stop() bool {
	if t.n++; t.n%tickEvery != 0 {
		return false
	}
	if err := t.env.check(); err != nil {
		panic(template.ExecError{Name: "range", Err: err})
	}
	return false
}

// Range is a range of a template: the nodes of its body, and its pipeline
// as written, for errors.
type Range struct {
	Body int
	Pipe string
}

// RangeError is a range over a value text/template cannot go over, as
// the range was written.
type RangeError struct {
	Pipe  string // the range's pipeline as written: .title
	Value string // the value, printed
}

func (e *RangeError) Error() string { return "range can't iterate over " + e.Value }

// nativeWork is the most work (a range's items times the nodes of its
// body) a range may do without a look at the deadline: below it, seq
// gives the list as it is, for text/template's own loop, which costs
// nothing a step; above it, an iterator that looks every tickEvery items
// and costs a few allocations an item.
const nativeWork = 1 << 14

// seq is what a range iterates over, v, for a range whose body has body
// nodes: it checks the run's deadline, once for the range when the work
// is small (a range whose body holds another range or calls a function
// looks at the deadline through those), else as it goes, through an
// iterator of the same items in the same order: the items of a list, the
// values of an object by sorted key (with two variables, the index and
// the item, the key and the value), the numbers below an integer. Any
// other value is given back as it is, for text/template to iterate over or
// refuse as it would.
func (env *Env) seq(v any, r Range, two bool) (any, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(v)
	n := 0
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		n = rv.Len()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = int(min(rv.Int(), 1<<40))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Chan, reflect.Func, reflect.Invalid:
	default:
		return nil, &RangeError{Pipe: r.Pipe, Value: fmt.Sprint(v)}
	}
	if float64(n)*float64(max(r.Body, 1)) <= nativeWork {
		return v, nil
	}
	t := &ticker{env: env}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if two {
			return iter.Seq2[int, any](func(yield func(int, any) bool) {
				for i := 0; i < rv.Len() && !t.stop(); i++ {
					if !yield(i, rv.Index(i).Interface()) {
						return
					}
				}
			}), nil
		}
		return iter.Seq[any](func(yield func(any) bool) {
			for i := 0; i < rv.Len() && !t.stop(); i++ {
				if !yield(rv.Index(i).Interface()) {
					return
				}
			}
		}), nil
	case reflect.Map:
		keys, ok := sortedKeys(rv)
		if !ok {
			return v, nil
		}
		if two {
			return iter.Seq2[any, any](func(yield func(any, any) bool) {
				for _, k := range keys {
					if t.stop() || !yield(k.Interface(), rv.MapIndex(k).Interface()) {
						return
					}
				}
			}), nil
		}
		return iter.Seq[any](func(yield func(any) bool) {
			for _, k := range keys {
				if t.stop() || !yield(rv.MapIndex(k).Interface()) {
					return
				}
			}
		}), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if two {
			return v, nil // text/template refuses two variables over an integer
		}
		return iter.Seq[any](func(yield func(any) bool) {
			for i := int64(0); i < int64(n) && !t.stop(); i++ {
				if !yield(reflect.ValueOf(i).Convert(rv.Type()).Interface()) {
					return
				}
			}
		}), nil
	}
	return v, nil
}

// sortedKeys is a map's keys in the order text/template ranges over them,
// for keys that are texts or integers; false for others.
func sortedKeys(m reflect.Value) ([]reflect.Value, bool) {
	keys := m.MapKeys()
	switch m.Type().Key().Kind() {
	case reflect.String:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) })
	default:
		return nil, false
	}
	return keys, true
}
