package server

import (
	"encoding/json"
	"net/http"

	"github.com/promptsmith/promptsmith/engine"
)

// writeJSON answers with v, indented for the people who read answers with
// curl. Errors go through writeError.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// nonNilResult makes a Result's lists [] rather than null, as the OpenAPI
// document promises.
func nonNilResult(res *engine.Result) {
	res.Sections = nonNil(res.Sections)
	res.Outline = nonNil(res.Outline)
	res.Checks = nonNil(res.Checks)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
