package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// stale is what one answer says of where it comes from.
type stale struct {
	header  string // X-Promptsmith-Stale
	body    map[string]any
	library string // X-Promptsmith-Library
	hash    string // X-Promptsmith-Library-Hash
}

// TestStaleAnswers: a variant broken on disk under --watch is answered
// from its last good version, and every answer says so, in a header and in
// its body, and names the library that made it in its headers as in its
// body's provenance; the healthy variants beside it are not marked.
func TestStaleAnswers(t *testing.T) {
	t.Parallel()
	dir := workingCopy(t)
	good := fixture.LoadDir(t, dir)
	srv, ts := serveWorkingCopy(t, good, dir)
	crowded := crowdedExample(dir)

	overview := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	fixed, _ := os.ReadFile(overview)
	os.WriteFile(overview, []byte("{{ if .parent }}\n"), 0o644)
	broken := fixture.LoadDir(t, dir)
	srv.Swap(broken.Fallback(good))
	if broken.Provenance().Library == good.Provenance().Library {
		t.Fatal("the broken edit did not change the library's hash")
	}
	doc := fetchDoc(t, ts, "")
	// The document describes the marker on each operation that answers
	// from a variant.
	if h, _ := doc.get("components", "headers", "X-Promptsmith-Stale").(map[string]any); h == nil || h["required"] != false {
		t.Errorf("components.headers lacks an optional X-Promptsmith-Stale: %v", h)
	}
	for _, op := range [][]string{{"/v1/render/delegation", "post", "200"}, {"/v1/render/delegation", "post", "422"},
		{"/v1/check/delegation", "post", "200"}, {"/v1/check/delegation", "post", "422"},
		{"/v1/variants/{variant}/examples/{example}/golden", "get", "200"}, {"/v1/variants/{variant}/schema", "get", "200"},
		{"/v1/variants/{variant}/examples/{example}", "get", "200"}} {
		if doc.get("paths", op[0], op[1], "responses", op[2], "headers", "X-Promptsmith-Stale") == nil {
			t.Errorf("%s %s %s does not document X-Promptsmith-Stale", op[1], op[0], op[2])
		}
	}
	for _, schema := range []string{"Result", "CheckReport", "ErrorBody", "GoldenReport"} {
		if doc.get("components", "schemas", schema, "properties", "stale") == nil {
			t.Errorf("components.schemas.%s has no stale member", schema)
		}
	}

	send := func(method, path, body string, code int) stale {
		t.Helper()
		resp, data := call(t, ts, method, path, body, "")
		if resp.StatusCode != code {
			t.Fatalf("%s %s: %d, want %d: %.600s", method, path, resp.StatusCode, code, data)
		}
		doc.check(t, method, path, resp, data)
		out := stale{header: resp.Header.Get("X-Promptsmith-Stale"), library: resp.Header.Get("X-Promptsmith-Library"),
			hash: resp.Header.Get("X-Promptsmith-Library-Hash")}
		json.Unmarshal(data, &out.body)
		return out
	}
	// provenance is the body's provenance: the Result's, a check report's,
	// or a check failure's result's.
	provenance := func(body map[string]any) map[string]any {
		if r, ok := body["result"].(map[string]any); ok {
			body = r
		}
		p, _ := body["provenance"].(map[string]any)
		return p
	}
	const where = "templates/delegation/overview.md.tmpl:1:1"
	isStale := func(what string, a stale, member map[string]any) {
		t.Helper()
		if !strings.HasPrefix(a.header, where+": ") || !strings.Contains(a.header, "never closed") || strings.Contains(a.header, dir) {
			t.Errorf("%s: X-Promptsmith-Stale %q", what, a.header)
		}
		if member == nil || member["position"] != where || member["kind"] != "template" || member["variant"] != "delegation" ||
			strings.Contains(fmt.Sprint(member), dir) {
			t.Errorf("%s: the body's stale member: %v", what, member)
		}
	}
	sameLibrary := func(what string, a stale, want *engine.Library) {
		t.Helper()
		p := provenance(a.body)
		if p != nil && (a.library != p["library_short"] || a.hash != p["library"]) {
			t.Errorf("%s: the headers name library %s (%s), the body %v", what, a.library, a.hash, p)
		}
		if a.hash != want.Provenance().Library || a.library != want.Provenance().Short {
			t.Errorf("%s: library %s, want %s, the library that made the answer", what, a.library, want.Provenance().Short)
		}
	}
	member := func(m map[string]any, key string) map[string]any {
		v, _ := m[key].(map[string]any)
		return v
	}

	// Each endpoint that answers from the broken variant.
	a := send("POST", "/v1/render/delegation", input, 200)
	if text, _ := a.body["text"].(string); !strings.HasPrefix(text, fixture.Heading(t, "delegation", 0)) {
		t.Errorf("the last good prompt is not answered: %.300v", a.body)
	}
	isStale("render", a, member(a.body, "stale"))
	sameLibrary("render", a, good)

	a = send("POST", "/v1/check/delegation", input, 200)
	isStale("check", a, member(a.body, "stale"))
	sameLibrary("check", a, good)

	a = send("POST", "/v1/render/delegation", failingCheck, 422)
	isStale("a check failure", a, member(member(a.body, "result"), "stale"))
	sameLibrary("a check failure", a, good)

	a = send("POST", "/v1/check/delegation", failingCheck, 422)
	isStale("a failed check report", a, member(a.body, "stale"))
	sameLibrary("a failed check report", a, good)

	a = send("POST", "/v1/render/delegation", `{"parent": {}}`, 422)
	isStale("an input error", a, member(a.body, "stale"))
	sameLibrary("an input error", a, good)

	a = send("GET", "/v1/variants/delegation/examples/crlf-parent/golden", "", 200)
	isStale("golden", a, member(a.body, "stale"))
	sameLibrary("golden", a, good)
	if a.body["status"] != "ok" {
		t.Errorf("the last good version differs from its golden file: %v", a.body["diff"])
	}

	a = send("GET", "/v1/variants/delegation/schema", "", 200)
	isStale("schema", a, map[string]any{"position": where, "kind": "template", "variant": "delegation"})
	sameLibrary("schema", a, good)
	a = send("GET", "/v1/variants/delegation/examples/minimal", "", 200)
	isStale("example", a, map[string]any{"position": where, "kind": "template", "variant": "delegation"})

	_, list := doList(t, ts.URL+"/v1/variants")
	for _, v := range list {
		if stale := v["stale"] == true; stale != (v["name"] == "delegation") {
			t.Errorf("variants: %v", v)
		}
	}

	// A healthy variant beside it: not marked, and made by the new library.
	for _, path := range []string{"/v1/render/space", "/v1/check/space"} {
		a = send("POST", path, string(crowded), 200)
		if a.header != "" || a.body["stale"] != nil {
			t.Errorf("%s of a healthy variant is marked stale: %q %v", path, a.header, a.body["stale"])
		}
		sameLibrary(path, a, broken)
	}
	if a = send("GET", "/v1/variants/space/examples/crowded/golden", "", 200); a.header != "" || a.body["stale"] != nil {
		t.Errorf("golden of a healthy variant is marked stale: %q", a.header)
	}

	// A second broken edit: the variant still comes from the library that
	// last loaded it, two swaps back.
	os.WriteFile(overview, []byte("{{ range .parent }}\n"), 0o644)
	broken2 := fixture.LoadDir(t, dir)
	srv.Swap(broken2.Fallback(srv.Library()))
	a = send("POST", "/v1/render/delegation", input, 200)
	isStale("render after a second broken edit", a, member(a.body, "stale"))
	if !strings.Contains(a.header, "{{range}}") {
		t.Errorf("the header does not say why the variant is broken now: %q", a.header)
	}
	sameLibrary("render after a second broken edit", a, good)

	// A reload that fails altogether: every answer comes from the last
	// library that loaded, and says so, as the events stream does.
	srv.ReloadFailed(&engine.Error{Kind: engine.KindTemplate, Reason: "no variants found", Position: filepath.Join(dir, "templates")})
	a = send("POST", "/v1/render/space", string(crowded), 200)
	if a.header != "no variants found" || member(a.body, "stale")["reason"] != "no variants found" {
		t.Errorf("a render after a failed reload: %q %v", a.header, a.body["stale"])
	}
	sameLibrary("a render after a failed reload", a, broken2)
	a = send("POST", "/v1/render/delegation", input, 200)
	sameLibrary("a stale variant after a failed reload", a, good)
	if !strings.Contains(a.header, "no variants found") {
		t.Errorf("a stale variant after a failed reload: %q", a.header)
	}

	// Fixed: nothing is stale, and the new library made everything.
	os.WriteFile(overview, fixed, 0o644)
	again := fixture.LoadDir(t, dir)
	srv.Swap(again.Fallback(srv.Library()))
	a = send("POST", "/v1/render/delegation", input, 200)
	if a.header != "" || a.body["stale"] != nil {
		t.Errorf("the fixed variant is marked stale: %q %v", a.header, a.body["stale"])
	}
	sameLibrary("the fixed variant", a, again)
}

// TestStaleHeaderIsOneLineOfASCII: the header says the error's position
// and reason on one line of printable ASCII, cut short; the body has it all.
func TestStaleHeaderIsOneLineOfASCII(t *testing.T) {
	t.Parallel()
	dir := workingCopy(t)
	good := fixture.LoadDir(t, dir)
	srv := server.New(good)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	srv.ReloadFailed(&engine.Error{Kind: engine.KindTemplate, Reason: "é\nbroken\t" + strings.Repeat("x", 1000)})
	resp, body := call(t, ts, "POST", "/v1/render/delegation", input, "")
	h := resp.Header.Get("X-Promptsmith-Stale")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(h, `\u00e9 broken xxx`) || !strings.HasSuffix(h, "...") || len(h) > 310 {
		t.Errorf("%d X-Promptsmith-Stale %q", resp.StatusCode, h)
	}
	if !strings.Contains(string(body), strings.Repeat("x", 500)) {
		t.Error("the body does not carry the whole error")
	}
}

// TestBrokenVariant: a variant of a working copy that does not load is
// listed with its error and answers 500 naming it, while the others render.
func TestBrokenVariant(t *testing.T) {
	t.Parallel()
	dir := fixture.LibraryCopy(t)
	os.WriteFile(filepath.Join(dir, "templates", "squad", "task.md.tmpl"), []byte("{{ if .task }}unclosed\n"), 0o644)
	lib := fixture.LoadDir(t, dir)
	ts := httptest.NewServer(server.New(lib))
	defer ts.Close()
	code, list := doList(t, ts.URL+"/v1/variants")
	if code != 200 {
		t.Fatalf("variants: %d", code)
	}
	found := false
	for _, v := range list {
		if v["name"] == "squad" {
			e, _ := v["error"].(map[string]any)
			found = e != nil && e["kind"] == "template" && e["position"] == "templates/squad/task.md.tmpl:1:1"
		}
	}
	if !found {
		t.Errorf("squad is not listed with its error: %v", list)
	}
	if code, _ := do(t, ts, "POST", "/v1/render/squad", "{}"); code != 500 {
		t.Errorf("rendering the broken variant: %d", code)
	}
	if code, res := do(t, ts, "POST", "/v1/render/delegation", input); code != 200 {
		t.Errorf("a good variant beside it: %d %v", code, res)
	}
}

func doList(t *testing.T, url string) (int, []map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}
