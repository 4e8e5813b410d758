package funcs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/internal/input"
)

// KeepsElements reports whether the function fn returns elements of its
// last argument, a list, and nothing else: what is known of the list's
// elements (the schema's type of each) holds for what it returns. The
// engine's field sites and lint's type checks both follow a field through
// these.
func KeepsElements(fn string) bool {
	switch fn {
	case "take", "takeLast", "sortBy", "sortByDesc", "where", "whereNot", "whereIn", "rest", "initial", "reverse", "uniq", "compact":
		return true
	}
	return false
}

func listFuncs() []Func {
	tasks := `{"tasks": [{"id": "a", "status": "done", "p": 2}, {"id": "b", "status": "open", "p": 10}, {"id": "c", "status": "open", "p": 1}]}`
	return []Func{
		{Name: "take", Namespace: "lists", Signature: "take N LIST", Fn: take,
			Doc:      "the first N elements",
			Examples: []Example{{Data: tasks, Template: `{{ range take 2 .tasks }}{{ .id }}{{ end }}`, Output: "ab"}}},
		{Name: "takeLast", Namespace: "lists", Signature: "takeLast N LIST", Fn: takeLast,
			Doc:      "the last N elements, in their order",
			Examples: []Example{{Data: tasks, Template: `{{ range takeLast 2 .tasks }}{{ .id }}{{ end }}`, Output: "bc"}}},
		{Name: "sortBy", Namespace: "lists", Signature: "sortBy FIELD LIST", Fn: sortByAsc,
			Doc: "the objects sorted by a field, stably: numbers numerically, ISO 8601 times as times, the rest as text; missing values last",
			Examples: []Example{
				{Data: tasks, Template: `{{ range sortBy "p" .tasks }}{{ .id }}{{ end }}`, Output: "cab"},
				{Data: `{"l": [{"t": "2026-01-02T10:00:00.5Z"}, {"t": "2026-01-02T11:00:00+02:00"}]}`,
					Template: `{{ range sortBy "t" .l }}{{ .t }} {{ end }}`, Output: "2026-01-02T11:00:00+02:00 2026-01-02T10:00:00.5Z "},
			}},
		{Name: "sortByDesc", Namespace: "lists", Signature: "sortByDesc FIELD LIST", Fn: sortByDesc,
			Doc:      "sortBy in reverse: missing values first",
			Examples: []Example{{Data: tasks, Template: `{{ range sortByDesc "p" .tasks }}{{ .id }}{{ end }}`, Output: "bac"}}},
		{Name: "where", Namespace: "lists", Signature: "where FIELD VALUE LIST", Fn: where,
			Doc:      "the objects whose field equals VALUE: numbers by value (1 is 1.0), never a number and a string (1 is not \"1\")",
			Examples: []Example{{Data: tasks, Template: `{{ range where "status" "open" .tasks }}{{ .id }}{{ end }}`, Output: "bc"}}},
		{Name: "whereNot", Namespace: "lists", Signature: "whereNot FIELD VALUE LIST", Fn: whereNot,
			Doc:      "the objects whose field differs from VALUE",
			Examples: []Example{{Data: tasks, Template: `{{ range whereNot "status" "open" .tasks }}{{ .id }}{{ end }}`, Output: "a"}}},
		{Name: "whereIn", Namespace: "lists", Signature: "whereIn FIELD VALUES LIST", Fn: whereIn,
			Doc:      "the objects whose field equals one of VALUES",
			Examples: []Example{{Data: tasks, Template: `{{ range whereIn "id" (list "a" "c") .tasks }}{{ .id }}{{ end }}`, Output: "ac"}}},
		{Name: "find", Namespace: "lists", Signature: "find FIELD VALUE LIST", Fn: find,
			Doc:      "the first object whose field equals VALUE, or nil",
			Examples: []Example{{Data: tasks, Template: `{{ (find "p" 10 .tasks).id }}`, Output: "b"}}},
	}
}

func toList(v any) ([]any, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return l, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a list, got %s", input.TypeName(v))
}

func take(n int, list any) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	return l[:min(max(n, 0), len(l))], nil
}

func takeLast(n int, list any) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	return l[len(l)-min(max(n, 0), len(l)):], nil
}

func field(v any, name string) any {
	if m, ok := v.(map[string]any); ok {
		return m[name]
	}
	return nil
}

func sortByAsc(name string, list any) ([]any, error)  { return sortBy(name, list, false) }
func sortByDesc(name string, list any) ([]any, error) { return sortBy(name, list, true) }

// sortBy sorts a list of objects by one field, stably: equal keys keep their
// input order. When every value present is an ISO 8601 time the values sort
// as times, so that time zones and fractions of a second count. Missing
// values sort last, and so first under desc, which reverses the whole order.
func sortBy(name string, list any, desc bool) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(l))
	for i, e := range l {
		keys[i] = field(e, name)
	}
	if times, ok := timeKeys(keys); ok {
		keys = times
	}
	order := make([]int, len(l))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		c := compare(keys[a], keys[b])
		if desc {
			return -c
		}
		return c
	})
	out := make([]any, len(l))
	for i, j := range order {
		out[i] = l[j]
	}
	return out, nil
}

// timeKeys parses sort keys as times when every key present is an ISO 8601
// time string; a single other value keeps them all as they are, so that a
// list never mixes two orders.
func timeKeys(keys []any) ([]any, bool) {
	out := make([]any, len(keys))
	found := false
	for i, k := range keys {
		if k == nil {
			continue
		}
		s, ok := k.(string)
		if !ok {
			return nil, false
		}
		t, err := parseTime(s)
		if err != nil {
			return nil, false
		}
		out[i], found = t, true
	}
	return out, found
}

func compare(a, b any) int {
	fa, aNum := number(a)
	fb, bNum := number(b)
	switch {
	case aNum && bNum:
		if fa < fb {
			return -1
		} else if fa > fb {
			return 1
		}
		return 0
	case a == nil && b != nil:
		return 1 // missing values sort last
	case b == nil && a != nil:
		return -1
	}
	if ta, ok := a.(time.Time); ok {
		if tb, ok := b.(time.Time); ok {
			return ta.Compare(tb)
		}
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func where(name string, value any, list any) ([]any, error) {
	return filter(list, func(e any) bool { return input.Equal(field(e, name), value) })
}

func whereNot(name string, value any, list any) ([]any, error) {
	return filter(list, func(e any) bool { return !input.Equal(field(e, name), value) })
}

func whereIn(name string, values any, list any) ([]any, error) {
	vs, err := toList(values)
	if err != nil {
		return nil, err
	}
	return filter(list, func(e any) bool {
		return slices.ContainsFunc(vs, func(v any) bool { return input.Equal(field(e, name), v) })
	})
}

func find(name string, value any, list any) (any, error) {
	l, err := where(name, value, list)
	if err != nil || len(l) == 0 {
		return nil, err
	}
	return l[0], nil
}

func filter(list any, keep func(any) bool) ([]any, error) {
	l, err := toList(list)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(l))
	for _, e := range l {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out, nil
}
