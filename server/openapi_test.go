package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// apiDoc is a server's OpenAPI document, compiled for validating the
// server's responses against it.
type apiDoc struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	mu       sync.Mutex // check runs from several goroutines
	seen     *coverage
}

// coverage is the documented responses a test has validated, "METHOD path status".
type coverage struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (c *coverage) add(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[key] = true
}

const docURL = "https://promptsmith.test/v1/openapi.json"

func fetchDoc(t *testing.T, ts *httptest.Server, token string, seen ...*coverage) *apiDoc {
	t.Helper()
	resp, body := call(t, ts, "GET", "/v1/openapi.json", "", token)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("openapi.json: %d %s: %.300s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	d := &apiDoc{compiler: jsonschema.NewCompiler(), seen: &coverage{seen: map[string]bool{}}}
	if len(seen) > 0 {
		d.seen = seen[0]
	}
	d.compiler.Draft = jsonschema.Draft2020
	if err := json.Unmarshal(body, &d.doc); err != nil {
		t.Fatal(err)
	}
	if d.doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %v", d.doc["openapi"])
	}
	if err := d.compiler.AddResource(docURL, bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	d.check(t, "GET", "/v1/openapi.json", resp, body)
	return d
}

// pointer is a URL fragment naming a place in the document.
func pointer(tokens ...string) string {
	var b strings.Builder
	b.WriteString("#")
	for _, tok := range tokens {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
		b.WriteString("/" + url.PathEscape(tok))
	}
	return b.String()
}

func (d *apiDoc) get(tokens ...string) any {
	var node any = d.doc
	for _, tok := range tokens {
		m, _ := node.(map[string]any)
		node = m[tok]
	}
	return node
}

// resolve follows a $ref to components.
func (d *apiDoc) resolve(node any) (any, []string) {
	m, _ := node.(map[string]any)
	if r, ok := m["$ref"].(string); ok && strings.HasPrefix(r, "#/components/") {
		tokens := strings.Split(strings.TrimPrefix(r, "#/"), "/")
		return d.get(tokens...), tokens
	}
	return node, nil
}

// template finds the path of the document that a request path matches.
func (d *apiDoc) template(path string) string {
	paths, _ := d.doc["paths"].(map[string]any)
	if _, ok := paths[path]; ok {
		return path
	}
	for p := range paths {
		re := "^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$"
		if regexp.MustCompile(re).MatchString(path) {
			return p
		}
	}
	return ""
}

// check validates a response against what the document gives for its
// path, method and status: the status is listed, its required headers are
// there, its media type is listed and the body matches the schema.
func (d *apiDoc) check(t *testing.T, method, path string, resp *http.Response, body []byte) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	path, _, _ = strings.Cut(path, "?")
	code := fmt.Sprint(resp.StatusCode)
	where := fmt.Sprintf("%s %s → %s", method, path, code)
	tmpl := d.template(path)
	var response any
	var at []string
	switch {
	case tmpl == "":
		response, at = d.resolve(map[string]any{"$ref": "#/components/responses/NotFound"})
		if code != "404" {
			t.Errorf("%s: a path the document lacks must answer 404", where)
		}
	case d.get("paths", tmpl, strings.ToLower(method)) == nil:
		response, at = d.resolve(map[string]any{"$ref": "#/components/responses/MethodNotAllowed"})
		if code != "405" {
			t.Errorf("%s: a method the document lacks must answer 405", where)
		}
	default:
		at = []string{"paths", tmpl, strings.ToLower(method), "responses", code}
		response = d.get(at...)
		if r, to := d.resolve(response); to != nil {
			response, at = r, to
		}
		d.seen.add(method + " " + tmpl + " " + code)
	}
	if response == nil {
		t.Errorf("%s: the document lists no such response: %.300s", where, body)
		return
	}
	r := response.(map[string]any)
	hdrs, _ := r["headers"].(map[string]any)
	for name, h := range hdrs {
		h, _ := d.resolve(h)
		if h.(map[string]any)["required"] == true && resp.Header.Get(name) == "" {
			t.Errorf("%s: no %s header", where, name)
		}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	contents, _ := r["content"].(map[string]any)
	if contents == nil {
		if len(body) > 0 {
			t.Errorf("%s: a body the document does not describe", where)
		}
		return
	}
	if contents[mt] == nil {
		t.Errorf("%s: media type %q is not in the document's %v", where, mt, slices.Collect(mapKeys(contents)))
		return
	}
	schemaURL := docURL + pointer(append(at, "content", mt, "schema")...)
	schema, err := d.compiler.Compile(schemaURL)
	if err != nil {
		t.Fatalf("%s: compile %s: %v", where, schemaURL, err)
	}
	var value any = string(body)
	if mt == "application/json" || strings.HasSuffix(mt, "+json") {
		if err := json.Unmarshal(body, &value); err != nil {
			t.Errorf("%s: not JSON: %v", where, err)
			return
		}
	}
	if err := schema.Validate(value); err != nil {
		t.Errorf("%s: the body does not match the document:\n%v\n%.600s", where, err, body)
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func call(t *testing.T, ts *httptest.Server, method, path, body, token string, header ...string) (*http.Response, []byte) {
	t.Helper()
	if token != "" {
		header = append([]string{"Authorization", "Bearer " + token}, header...)
	}
	return fixture.Do(t, ts.Client(), method, ts.URL+path, body, header...)
}

// failingCheck renders, but its prompt breaks the delegation manifest's
// forbid check ("${" outside the parent prompt), in the details section.
const failingCheck = `{"parent": {"agent_id": "a", "prompt_key": "k", "prompt": "# P\n"},
 "delegation": {"reason": "r", "expected_completion": "e", "task_summary": "use ${TOKEN}", "required_outputs": ["x"]}}`

// TestOpenAPIMatchesResponses sends real requests to every endpoint, valid
// and not, and validates each response against the document the server
// serves: its status, headers, media type and body.
func TestOpenAPIMatchesResponses(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	const token = "s3cret-token"
	srv := server.New(lib)
	srv.Token = token
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := fetchDoc(t, ts, token)

	chain, err := os.ReadFile("../testdata/golden/delegation/nested-chain.md")
	if err != nil {
		t.Fatal(err)
	}
	yamlInput := "parent: {agent_id: a, prompt_key: k, prompt: hi}\ndelegation: {reason: r, expected_completion: e, task_summary: t, required_outputs: [x]}\n"
	cases := []struct {
		method, path, body string
		token              string
		code               int
	}{
		{"GET", "/v1/variants", "", token, 200},
		{"GET", "/v1/variants/delegation/schema", "", token, 200},
		{"GET", "/v1/variants/nope/schema", "", token, 404},
		{"GET", "/v1/variants/delegation/examples/minimal", "", token, 200},
		{"GET", "/v1/variants/delegation/examples/nope", "", token, 404},
		{"GET", "/v1/variants/nope/examples/minimal", "", token, 404},
		{"POST", "/v1/render/delegation", input, token, 200},
		{"POST", "/v1/render/delegation", yamlInput, token, 200},
		{"POST", "/v1/render/delegation?format=anthropic", input, token, 200},
		{"POST", "/v1/render/delegation?format=openai", input, token, 200},
		{"POST", "/v1/render/delegation", `{"parent": {}}`, token, 422},
		{"POST", "/v1/render/delegation", `{"parent": `, token, 422},
		{"POST", "/v1/render/delegation", failingCheck, token, 422},
		{"POST", "/v1/render/nope", input, token, 404},
		{"POST", "/v1/check/delegation", input, token, 200},
		{"POST", "/v1/check/delegation", failingCheck, token, 422},
		{"POST", "/v1/check/delegation", "- a list\n", token, 422},
		{"POST", "/v1/check/nope", input, token, 404},
		{"POST", "/v1/extract?depth=3", string(chain), token, 200},
		{"POST", "/v1/extract?depth=0", string(chain), token, 400},
		{"POST", "/v1/extract?variant=nope", string(chain), token, 404},
		{"POST", "/v1/extract", "# no markers\n", token, 422},
		{"GET", "/v1/version", "", token, 200},
		{"GET", "/metrics", "", token, 200},
		{"GET", "/healthz", "", "", 200},
		{"GET", "/", "", token, 200},
		{"GET", "/v1/variants", "", "", 401},
		{"POST", "/v1/render/delegation", input, "wrong", 401},
		{"GET", "/metrics", "", "", 401},
		{"GET", "/v1/openapi.json", "", "", 401},
		{"PUT", "/v1/render/delegation", input, token, 405},
		{"DELETE", "/v1/variants", "", token, 405},
		{"GET", "/v1/check/delegation", "", token, 405},
		{"GET", "/v2/anything", "", token, 404},
	}
	for _, c := range cases {
		resp, body := call(t, ts, c.method, c.path, c.body, c.token)
		if resp.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d: %.300s", c.method, c.path, resp.StatusCode, c.code, body)
			continue
		}
		doc.check(t, c.method, c.path, resp, body)
	}

	// The limits, each on a server of its own: a small body limit (413),
	// an audit store that fails (500), one render slot and one queue place
	// taken (503, Retry-After) and a render past --render-timeout (503).
	small := server.New(lib)
	small.MaxBody = 100
	check := func(srv *server.Server, method, path, body string, code int) {
		t.Helper()
		ts := httptest.NewServer(srv)
		defer ts.Close()
		doc := fetchDoc(t, ts, "", doc.seen)
		resp, data := call(t, ts, method, path, body, "")
		if resp.StatusCode != code {
			t.Errorf("%s %s: %d, want %d: %.300s", method, path, resp.StatusCode, code, data)
			return
		}
		doc.check(t, method, path, resp, data)
	}
	check(small, "POST", "/v1/render/delegation", input, 413)
	check(small, "POST", "/v1/extract", string(chain), 413)
	failing := server.New(lib)
	failing.Audit = server.RecordHook(func(*engine.Variant, *engine.Result) error { return errors.New("disk full") })
	check(failing, "POST", "/v1/render/delegation", input, 503)

	busy, release, entered := blockingServer(t, lib, 1, 1)
	busy.RenderTimeout = time.Second
	bts := httptest.NewServer(busy)
	defer bts.Close()
	bdoc := fetchDoc(t, bts, "", doc.seen)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // holds the one slot until released
		defer wg.Done()
		resp, body := call(t, bts, "POST", "/v1/render/delegation", input, "")
		if resp.StatusCode != 200 {
			t.Errorf("the first render: %d %s", resp.StatusCode, body)
		}
	}()
	<-entered
	go func() { // waits in the queue until its render timeout passes
		defer wg.Done()
		resp, body := call(t, bts, "POST", "/v1/check/delegation", input, "")
		if resp.StatusCode != 503 {
			t.Errorf("a render past its timeout: %d %s", resp.StatusCode, body)
		}
		bdoc.check(t, "POST", "/v1/check/delegation", resp, body)
		close(release)
	}()
	server.AwaitGauge(t, busy, "promptsmith_renders_queued", 1)
	resp, body := call(t, bts, "POST", "/v1/render/delegation", input, "")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a full queue: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	bdoc.check(t, "POST", "/v1/render/delegation", resp, body)
	resp, body = call(t, bts, "POST", "/v1/extract", string(chain), "")
	if resp.StatusCode != 503 {
		t.Errorf("extract with a full queue: %d %s", resp.StatusCode, body)
	}
	bdoc.check(t, "POST", "/v1/extract", resp, body)
	wg.Wait()

	var missing []string
	for p, item := range doc.doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			for code := range op.(map[string]any)["responses"].(map[string]any) {
				key := strings.ToUpper(method) + " " + p + " " + code
				if !doc.seen.seen[key] {
					missing = append(missing, key)
				}
			}
		}
	}
	slices.Sort(missing)
	t.Logf("documented responses this test does not reach: %v", missing)
}

// TestOpenAPIDescribesTheLibrary: the document lists the variants the
// library has, with their input schemas, and every example input is valid
// against the render request body's schema.
func TestOpenAPIDescribesTheLibrary(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	ts := httptest.NewServer(server.New(lib))
	defer ts.Close()
	doc := fetchDoc(t, ts, "")
	if sec, _ := doc.doc["security"].([]any); len(sec) != 1 || len(sec[0].(map[string]any)) != 0 || doc.get("components", "securitySchemes", "bearerAuth") == nil {
		t.Errorf("a server without a token: security %v", doc.doc["security"])
	}
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		op := "render" + strings.ToUpper(name[:1]) + name[1:]
		if got := doc.get("paths", "/v1/render/"+name, "post", "operationId"); got != op {
			t.Errorf("POST /v1/render/%s: operationId %v, want %s", name, got, op)
		}
		if doc.get("components", "schemas", name+"Input") == nil {
			t.Errorf("no components.schemas.%sInput", name)
		}
		own, err := doc.compiler.Compile(docURL + pointer("components", "schemas", name+"Input"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, media := range []string{"application/json", "application/yaml"} {
			body, err := doc.compiler.Compile(docURL + pointer("paths", "/v1/render/"+name, "post", "requestBody", "content", media, "schema"))
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range v.Examples() {
				in, _ := v.Example(ex)
				var value any
				if !json.Valid(in.Data) {
					if err := yaml.Unmarshal(in.Data, &value); err != nil {
						t.Fatalf("%s: %v", in.Name, err)
					}
					in.Data, _ = json.Marshal(value)
				}
				json.Unmarshal(in.Data, &value)
				if err := body.Validate(value); err != nil {
					t.Errorf("%s example %s is not a valid %s render body: %v", name, ex, media, err)
				}
				if err := own.Validate(value); err != nil {
					t.Errorf("%s example %s does not match %sInput: %v", name, ex, name, err)
				}
			}
		}
	}
	// The schemas are closed: a member the server does not send is refused.
	result, err := doc.compiler.Compile(docURL + pointer("components", "schemas", "Result"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := lib.Render(context.Background(), "delegation", engine.Input{Name: "x", Data: []byte(input)})
	var value map[string]any
	data, _ := json.Marshal(res)
	json.Unmarshal(data, &value)
	if err := result.Validate(value); err != nil {
		t.Errorf("a Result does not match its schema: %v", err)
	}
	value["surprise"] = 1
	if result.Validate(value) == nil {
		t.Error("the Result schema lets a member it does not list through")
	}
	// A reference inside a variant's schema points at a component.
	if !strings.Contains(fmt.Sprint(doc.get("components", "schemas", "delegationInput")), "#/components/schemas/delegationTool") {
		t.Error("the delegation input's references do not point at its definitions' components")
	}
}

// TestErrorCarriesEveryEngineMember: the API's error body has every member
// of the engine's error, so that nothing the engine says is lost on the wire.
func TestErrorCarriesEveryEngineMember(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	ts := httptest.NewServer(server.New(lib))
	defer ts.Close()
	doc := fetchDoc(t, ts, "")
	props, _ := doc.get("components", "schemas", "Error", "properties").(map[string]any)
	data, _ := json.Marshal(&engine.Error{Kind: "x", Reason: "x", Field: "x", Position: "x", Variant: "x", Example: "x", Level: 1,
		Hints: []string{"x"}, Also: []*engine.Error{{}}})
	var members map[string]any
	json.Unmarshal(data, &members)
	for m := range members {
		if props[m] == nil {
			t.Errorf("the API's error has no %q member, which the engine's has", m)
		}
	}
	for _, m := range []string{"path", "parameter", "check", "section"} {
		if props[m] == nil {
			t.Errorf("the API's error has no %q member", m)
		}
	}
	if !strings.Contains(fmt.Sprint(props["also"]), "#/components/schemas/Error") {
		t.Errorf("also is not a list of errors: %v", props["also"])
	}
}

// blockingServer is a server whose renders, in their slot, signal entered
// and wait for release: they hold their slot as long as the test wants.
func blockingServer(t *testing.T, lib *engine.Library, renders, queue int) (srv *server.Server, release chan struct{}, entered chan struct{}) {
	srv = server.New(lib)
	srv.MaxRenders, srv.MaxQueue = renders, queue
	release, entered = make(chan struct{}), make(chan struct{}, 64)
	server.SetSlotHook(srv, func() {
		entered <- struct{}{}
		<-release
	})
	return srv, release, entered
}
