package funcs

import (
	"fmt"

	"github.com/promptsmith/promptsmith/internal/input"
)

func objectFuncs(env *Env) []Func {
	payload := `{"payload": {"zeta": 1, "alpha": [true, "<b>"]}}`
	each := func(fn func(m map[string]any, key string) any) func(any) ([]any, error) {
		return func(v any) ([]any, error) { return eachKey(env.Keys, v, fn) }
	}
	return []Func{
		{Name: "entries", Namespace: "objects", Signature: "entries OBJECT", Fn: each(func(m map[string]any, k string) any {
			return map[string]any{"key": k, "value": m[k]}
		}),
			Doc: "the {key, value} pairs of an object in input order, as Object.entries gives them in JavaScript",
			Examples: []Example{{Data: payload,
				Template: `{{ range entries .payload }}{{ .key }} {{ end }}`, Output: "zeta alpha "}}},
		{Name: "keys", Namespace: "objects", Signature: "keys OBJECT", Fn: each(func(_ map[string]any, k string) any { return k }),
			Doc:      "sprig's keys of one object, in input order rather than at random",
			Examples: []Example{{Data: payload, Template: `{{ keys .payload | join "," }}`, Output: "zeta,alpha"}}},
		{Name: "values", Namespace: "objects", Signature: "values OBJECT", Fn: each(func(m map[string]any, k string) any { return m[k] }),
			Doc:      "sprig's values of one object, in input order rather than at random",
			Examples: []Example{{Data: payload, Template: `{{ range values .payload }}{{ . }};{{ end }}`, Output: "1;[true <b>];"}}},
		{Name: "json", Namespace: "objects", Signature: "json VALUE", Fn: func(v any) string { return string(input.AppendJSON(nil, v, env.Keys, false)) },
			Doc:      "VALUE as compact JSON with objects in input order and no HTML escaping",
			Examples: []Example{{Data: payload, Template: `{{ json .payload }}`, Output: `{"zeta":1,"alpha":[true,"<b>"]}`}}},
		{Name: "prettyJson", Namespace: "objects", Signature: "prettyJson VALUE", Fn: func(v any) string { return string(input.AppendJSON(nil, v, env.Keys, true)) },
			Doc:      "json indented by two spaces",
			Examples: []Example{{Data: `{"p": {"b": 1, "a": 2}}`, Template: `{{ prettyJson .p }}`, Output: "{\n  \"b\": 1,\n  \"a\": 2\n}"}}},
	}
}

// eachKey maps an object's keys, in input order, to a list.
func eachKey(keys *input.KeyOrder, v any, fn func(m map[string]any, key string) any) ([]any, error) {
	if v == nil {
		return []any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object, got %s", input.TypeName(v))
	}
	ks := keys.Keys(m)
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = fn(m, k)
	}
	return out, nil
}
