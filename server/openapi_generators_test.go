package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
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
	t.Parallel()
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
					if !slices.Contains([]string{"$ref", "description", "title", "default", "x-default", "examples"}, k) {
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
				case "enum", "const", "default", "x-default", "examples", "required":
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

// TestOpenAPIComponentNamesCollide: two definitions of one schema whose
// component names are one (a_b and aB), or a definition named as the
// input's component, once overwrote each other in the document, which of
// them depending on map order. The document is refused instead, naming
// the definitions.
func TestOpenAPIComponentNamesCollide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ defs, want string }{
		{`{"a_b": {"type": "string"}, "aB": {"type": "integer"}}`, "$defs/a_b would be components.schemas.spaceAB, which is $defs/aB already"},
		{`{"input": {"type": "boolean"}}`, "$defs/input would be components.schemas.spaceInput, which is the input itself already"},
	} {
		dir := workingCopy(t)
		file := filepath.Join(dir, "schemas", "space.schema.json")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		defs := map[string]json.RawMessage{}
		json.Unmarshal(schema["$defs"], &defs) // those it has, which its properties reference
		json.Unmarshal([]byte(c.defs), &defs)
		schema["$defs"], _ = json.Marshal(defs)
		b, _ = json.Marshal(schema)
		os.WriteFile(file, b, 0o644)
		ts := httptest.NewServer(server.New(fixture.LoadDir(t, dir)))
		for range 3 { // the same answer every time: no map order decides it
			resp, err := http.Get(ts.URL + "/v1/openapi.json")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 500 || !strings.Contains(string(body), c.want) {
				t.Errorf("%s: %d %s, want 500 saying %q", c.defs, resp.StatusCode, body, c.want)
			}
		}
		ts.Close()
	}
}

// TestOpenAPIWithABrokenVariant: a variant that does not load (served
// without a last good version) made GET /v1/openapi.json panic on its
// missing schema; the document now describes the variants that load.
func TestOpenAPIWithABrokenVariant(t *testing.T) {
	t.Parallel()
	dir := workingCopy(t)
	os.WriteFile(filepath.Join(dir, "schemas", "space.schema.json"), []byte("{ not json"), 0o644)
	ts := httptest.NewServer(server.New(fixture.LoadDir(t, dir)))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Contains(string(body), `"spaceInput"`) || !strings.Contains(string(body), `"delegationInput"`) {
		t.Errorf("%d, %.300s", resp.StatusCode, body)
	}
}
