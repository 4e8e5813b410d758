package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

const input = `{"parent": {"agent_id": "a", "prompt_key": "k", "prompt": "# P\n"},
 "delegation": {"reason": "r", "expected_completion": "e", "task_summary": "t", "required_outputs": ["x"]}}`

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	lib := fixture.Library(t)
	ts := httptest.NewServer(server.New(lib))
	t.Cleanup(ts.Close)
	return ts
}

// builtinServer is a server of the library built into the binary, for
// the tests of what the server does around a render.
func builtinServer() *server.Server {
	lib, _ := promptsmith.Library()
	return server.New(lib)
}

func do(t *testing.T, ts *httptest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	resp, data := call(t, ts, method, path, body, "")
	var out map[string]any
	if len(data) > 0 && data[0] == '{' {
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
	return resp.StatusCode, out
}

func TestRender(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	code, res := do(t, ts, "POST", "/v1/render/delegation", input)
	if code != 200 || !strings.HasPrefix(res["text"].(string), fixture.Heading(t, "delegation", 0)) {
		t.Fatalf("%d %v", code, res)
	}
	if id := res["ids"].(map[string]any)["delegation_id"].(string); !strings.HasPrefix(id, "dlg-") {
		t.Errorf("id %q", id)
	}
	// The same bytes as a Go render of the same input.
	lib, _ := promptsmith.Library()
	want, _ := lib.Render(context.Background(), "delegation", engine.Input{Name: "x", Data: []byte(input)})
	if res["text"] != want.Text {
		t.Error("the API's text differs from the library's")
	}
	// YAML works too.
	code, res = do(t, ts, "POST", "/v1/render/delegation", "parent: {agent_id: a, prompt_key: k, prompt: hi}\ndelegation: {reason: r, expected_completion: e, task_summary: t, required_outputs: [x]}\n")
	if code != 200 {
		t.Fatalf("yaml: %d %v", code, res)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	// Each error names what it concerns in a member of its own: a JSON
	// pointer into the input (field), a variant, a level of extraction, a
	// URL path or a query parameter.
	cases := []struct {
		method, path, body string
		code               int
		key                string
		value              any
	}{
		{"POST", "/v1/render/delegation", `{"parent": {}}`, 422, "field", "/delegation"},
		{"POST", "/v1/render/delegation", `{"parent": `, 422, "position", "body:1:12"},
		{"POST", "/v1/render/nope", input, 404, "variant", "nope"},
		{"GET", "/v1/render/delegation", "", 405, "path", "/v1/render/delegation"},
		{"PUT", "/v1/variants", "", 405, "path", "/v1/variants"},
		{"POST", "/v1/extract?depth=0", "x", 400, "parameter", "depth"},
		{"POST", "/v1/extract", "# no markers\n", 422, "level", float64(1)},
		{"GET", "/v2/anything", "", 404, "path", "/v2/anything"},
	}
	for _, c := range cases {
		code, res := do(t, ts, c.method, c.path, c.body)
		if code != c.code {
			t.Errorf("%s %s: status %d, want %d (%v)", c.method, c.path, code, c.code, res)
			continue
		}
		e, _ := res["error"].(map[string]any)
		if e == nil || e["reason"] == "" {
			t.Errorf("%s %s: no structured error: %v", c.method, c.path, res)
		} else if e[c.key] != c.value {
			t.Errorf("%s %s: %s %v, want %v (%v)", c.method, c.path, c.key, e[c.key], c.value, e)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	srv.MaxBody = 100
	ts := httptest.NewServer(srv)
	defer ts.Close()
	code, res := do(t, ts, "POST", "/v1/render/delegation", input)
	if code != 413 || res["error"] == nil {
		t.Fatalf("%d %v", code, res)
	}
}

func TestVariantsSchemaCheckExtract(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	resp, err := ts.Client().Get(ts.URL + "/v1/variants")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ Name, Description string }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	found := false
	for _, v := range list {
		found = found || (v.Name == "delegation" && v.Description != "")
	}
	if !found {
		t.Errorf("variants: %v", list)
	}
	code, schema := do(t, ts, "GET", "/v1/variants/delegation/schema", "")
	if code != 200 || schema["$schema"] == nil {
		t.Errorf("schema: %d", code)
	}
	code, check := do(t, ts, "POST", "/v1/check/delegation", input)
	if code != 200 || check["ok"] != true {
		t.Errorf("check: %d %v", code, check)
	}
	chain, err := os.ReadFile("../testdata/golden/delegation/nested-chain.md")
	if err != nil {
		t.Fatal(err)
	}
	code, ex := do(t, ts, "POST", "/v1/extract?depth=3", string(chain))
	// The prompt three levels down: a part of the chain, not all of it
	// (engine/verbatim holds what extraction cuts).
	if text, _ := ex["text"].(string); code != 200 || text == "" || len(text) >= len(chain) || !strings.Contains(string(chain), text) {
		t.Errorf("extract: %d %v", code, ex)
	}
}

func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				if code, _ := do(t, ts, "POST", "/v1/render/delegation", input); code != 200 {
					t.Errorf("status %d", code)
				}
			}
		}()
	}
	wg.Wait()
}

// TestAuditFailureIs503: a prompt that cannot be recorded is never
// answered, nor blamed on the caller: 503 with Retry-After, logged.
func TestAuditFailureIs503(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	var logged strings.Builder
	srv.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	srv.Audit = server.RecordHook(func(*engine.Variant, *engine.Result) error { return errors.New("disk full") })
	ts := httptest.NewServer(srv)
	defer ts.Close()
	code, res := do(t, ts, "POST", "/v1/render/delegation", input)
	e, _ := res["error"].(map[string]any)
	if code != 503 || e == nil || e["kind"] != "unavailable" || res["text"] != nil {
		t.Fatalf("status %d, %v", code, res)
	}
	if !strings.Contains(logged.String(), "disk full") || !strings.Contains(logged.String(), "status=503") {
		t.Errorf("not logged: %q", logged.String())
	}
}
