package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// TestBrokenVariant: a variant of a working copy that does not load is
// listed with its error and answers 500 naming it, while the others render.
func TestBrokenVariant(t *testing.T) {
	t.Parallel()
	dir := fixture.LibraryCopy(t)
	os.WriteFile(filepath.Join(dir, "templates", "squad", "task.md.tmpl"), []byte("{{ if .task }}unclosed\n"), 0o644)
	lib := loadWorkingCopy(t, dir)
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
