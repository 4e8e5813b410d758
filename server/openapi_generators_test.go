package server_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// TestOpenAPIForGenerators: the document holds nothing the common code
// generators reject (the run of .ci/clients proves it with oapi-codegen,
// openapi-typescript and redocly; this test keeps the rules without them):
// no boolean subschemas but additionalProperties, no type lists, no $defs,
// no reference with constraints beside it; a typed operation for each
// variant with the 401, 413, 415, 422 and 503 responses; the bearer
// scheme and servers.
func TestOpenAPIForGenerators(t *testing.T) {
	srv := server.New(fixture.Library(t))
	srv.Token = "s3cret"
	forGenerators(t, srv)
}

// forGenerators checks the document srv serves, with the token s3cret,
// as TestOpenAPIForGenerators says.
func forGenerators(t *testing.T, srv *server.Server) {
	t.Helper()
	lib := srv.Library()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := fetchDoc(t, ts, "s3cret")
	var bad []string
	var walk func(node any, at string, schema bool)
	walk = func(node any, at string, schema bool) {
		switch n := node.(type) {
		case bool:
			if schema {
				bad = append(bad, at+": a boolean subschema")
			}
		case []any:
			for i, v := range n {
				walk(v, fmt.Sprintf("%s/%d", at, i), schema)
			}
		case map[string]any:
			if _, ok := n["type"].([]any); ok && schema {
				bad = append(bad, at+": a type list")
			}
			if _, ok := n["$defs"]; ok {
				bad = append(bad, at+": $defs")
			}
			if _, ok := n["$ref"]; ok && schema && len(n) > 1 {
				for k := range n {
					if !slices.Contains([]string{"$ref", "description", "title", "default", "examples"}, k) {
						bad = append(bad, at+": $ref beside "+k)
					}
				}
			}
			for k, v := range n {
				sub := schema
				switch k {
				case "schema", "items", "not", "additionalProperties", "if", "then", "else", "contains":
					sub = true
				case "properties", "patternProperties", "$defs", "allOf", "anyOf", "oneOf", "schemas":
					for name, s := range asMap(v) {
						walk(s, at+"/"+k+"/"+name, true)
					}
					if list, ok := v.([]any); ok {
						walk(list, at+"/"+k, true)
					}
					continue
				case "enum", "const", "default", "examples", "required":
					continue
				}
				if k == "additionalProperties" {
					if _, ok := v.(bool); ok {
						continue // generators read additionalProperties: false
					}
				}
				walk(v, at+"/"+k, sub)
			}
		}
	}
	walk(doc.doc, "#", false)
	if len(bad) > 0 {
		slices.Sort(bad)
		t.Errorf("what generators reject:\n%s", strings.Join(bad, "\n"))
	}
	if doc.get("components", "securitySchemes", "bearerAuth", "scheme") != "bearer" || doc.get("servers") == nil {
		t.Error("no bearer scheme or no servers")
	}
	for _, name := range lib.Names() {
		for _, code := range []string{"200", "401", "413", "415", "422", "503"} {
			if doc.get("paths", "/v1/render/"+name, "post", "responses", code) == nil {
				t.Errorf("POST /v1/render/%s documents no %s", name, code)
			}
		}
	}
	for _, p := range []string{"/livez", "/readyz", "/healthz"} {
		if sec, _ := doc.get("paths", p, "get", "security").([]any); sec == nil || len(sec) != 0 {
			t.Errorf("%s is behind the token in the document", p)
		}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
