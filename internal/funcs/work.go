package funcs

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/promptsmith/promptsmith/internal/input"
)

// checkEvery is how many comparisons a function that compares every item
// with many others makes between two looks at the run's deadline.
const checkEvery = 1024

// distinct is a set of values, equal as reflect.DeepEqual tells (as
// sprig's uniq and without compare them): texts, numbers and booleans by
// hashing, in constant time; other values (lists, objects) one by one,
// with a look at the run's deadline every checkEvery comparisons. sprig
// compares every item with every other: uniq over until 30000 took 22 s,
// past any deadline.
type distinct struct {
	env    *Env
	keys   map[any]struct{}
	others []any
	steps  int
}

// hashable reports whether v's equality under reflect.DeepEqual is ==.
func hashable(v any) bool {
	switch reflect.ValueOf(v).Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

func (d *distinct) has(v any) (bool, error) {
	if hashable(v) {
		_, ok := d.keys[v]
		return ok, nil
	}
	for _, o := range d.others {
		if d.steps++; d.steps%checkEvery == 0 {
			if err := d.env.check(); err != nil {
				return false, err
			}
		}
		if reflect.DeepEqual(v, o) {
			return true, nil
		}
	}
	return false, nil
}

func (d *distinct) add(v any) {
	if hashable(v) {
		d.keys[v] = struct{}{}
	} else {
		d.others = append(d.others, v)
	}
}

// listItems is the items of a slice or array, or an error naming fn as
// sprig's does.
func listItems(fn string, list any) ([]any, error) {
	if list == nil {
		return nil, fmt.Errorf("Cannot find %s on type nil", fn)
	}
	rv := reflect.ValueOf(list)
	if k := rv.Kind(); k != reflect.Slice && k != reflect.Array {
		return nil, fmt.Errorf("Cannot find %s on type %s", fn, k)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// guardUniq is sprig's uniq (and mustUniq): the items of a list without
// those equal to one before, in linear time for texts and numbers.
func guardUniq(env *Env, _ string, _ any) (any, bool) {
	return func(list any) ([]any, error) {
		return env.itemsNotIn("uniq", list, &distinct{env: env, keys: map[any]struct{}{}}, true)
	}, true
}

// guardWithout is sprig's without (and mustWithout): the items of a list
// equal to none of the values omitted, in linear time for texts and
// numbers.
func guardWithout(env *Env, _ string, _ any) (any, bool) {
	return func(list any, omit ...any) ([]any, error) {
		omitted := &distinct{env: env, keys: map[any]struct{}{}}
		for _, o := range omit {
			omitted.add(o)
		}
		return env.itemsNotIn("without", list, omitted, false)
	}, true
}

// itemsNotIn is the items of list (read as fn reads it) equal to none in
// set, in order; with addKept, each item kept joins set, so that its
// equals after it go.
func (env *Env) itemsNotIn(fn string, list any, set *distinct, addKept bool) ([]any, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	l, err := listItems(fn, list)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, x := range l {
		in, err := set.has(x)
		if err != nil {
			return nil, err
		}
		if !in {
			if addKept {
				set.add(x)
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// guardWhereIn is whereIn, which compares every object's field with
// every value: it looks at the run's deadline every checkEvery
// comparisons.
func guardWhereIn(env *Env, _ string, _ any) (any, bool) {
	return func(name string, values any, list any) ([]any, error) {
		vs, err := toList(values)
		if err != nil {
			return nil, err
		}
		steps := 0
		var stopped error
		out, err := filter(list, func(e any) bool {
			if stopped != nil {
				return false
			}
			f := field(e, name)
			return slices.ContainsFunc(vs, func(v any) bool {
				if steps++; steps%checkEvery == 0 && stopped == nil {
					stopped = env.check()
				}
				return stopped == nil && input.Equal(f, v)
			})
		})
		if stopped != nil {
			return nil, stopped
		}
		return out, err
	}, true
}
