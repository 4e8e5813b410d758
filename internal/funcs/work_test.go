package funcs

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/Masterminds/sprig/v3"
)

// TestEveryPrecheckApplies: every function of the precheck table is a
// function a template may call, of the type its guard expects, so that
// none falls back to postcheck unseen when a library changes a signature.
func TestEveryPrecheckApplies(t *testing.T) {
	env := &Env{}
	f := unguarded(env)
	builtins(f)
	for name, g := range prechecks() {
		fn, ok := f[name]
		if !ok {
			t.Errorf("%s is in the precheck table but no function a template may call", name)
			continue
		}
		if _, ok := g(env, name, fn); !ok {
			t.Errorf("%s is of type %T, not the one its guard expects", name, fn)
		}
	}
}

// TestUniqAndWithoutMeanWhatSprigsDo: uniq and without give what sprig's
// give, in linear time for texts and numbers.
func TestUniqAndWithoutMeanWhatSprigsDo(t *testing.T) {
	nan := 0.0
	nan = nan / nan
	lists := [][]any{
		{},
		{1, 1, "1", int64(1), 1.0, -0.0, 0.0, nan, nan, true, true, nil, nil},
		{[]any{1}, []any{1}, map[string]any{"a": 1}, map[string]any{"a": 1}, "a", "a", []any{}},
	}
	s := sprig.TxtFuncMap()
	env := &Env{}
	uniq, _ := guardUniq(env, "uniq", nil)
	without, _ := guardWithout(env, "without", nil)
	for _, l := range lists {
		got, err := uniq.(func(any) ([]any, error))(l)
		if want := s["uniq"].(func(any) []any)(l); err != nil || !sameItems(got, want) {
			t.Errorf("uniq %v: %v (%v), want %v", l, got, err, want)
		}
		omit := []any{1, "a", []any{1}, nan, nil}
		got, err = without.(func(any, ...any) ([]any, error))(l, omit...)
		if want := s["without"].(func(any, ...any) []any)(l, omit...); err != nil || !sameItems(got, want) {
			t.Errorf("without %v: %v (%v), want %v", l, got, err, want)
		}
	}
	if _, err := uniq.(func(any) ([]any, error))(map[string]any{}); err == nil {
		t.Error("uniq of an object: no error")
	}
}

// sameItems compares two lists item by item, NaN equal to NaN.
func sameItems(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		fa, okA := a[i].(float64)
		fb, okB := b[i].(float64)
		if okA && okB && fa != fa && fb != fb {
			continue
		}
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestQuadraticFunctionsStopAtTheDeadline: uniq over many texts is linear
// now; over many lists, and whereIn over many values, they compare every
// pair but look at the deadline while they do.
func TestQuadraticFunctionsStopAtTheDeadline(t *testing.T) {
	limits := Limits{ListItems: 100_000, OutputBytes: 1 << 20}
	if out, err := run(context.Background(), limits, `{{ len (uniq (until 30000)) }}`); err != nil || out != "30000" {
		t.Errorf("uniq of until 30000: %q, %v", out, err)
	}
	// two values omitted: linear
	if out, err := run(context.Background(), limits, `{{ len (without (chunk 1 (until 100000)) (list 1) (list 2)) }}`); err != nil || out != "99998" {
		t.Errorf("without of lists: %q, %v", out, err)
	}
	for name, src := range map[string]string{
		"uniq of lists": `{{ len (uniq (chunk 1 (until 100000))) }}`,
		"whereIn":       `{{ len (whereIn "a" (until 100000) (until 100000)) }}`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := run(ctx, limits, src)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
