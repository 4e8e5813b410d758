package server_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server"
)

// TestServeSurvivesHostileTemplates: templates that recurse through
// template and include in turn, or loop past the deadline in ranges that
// call nothing, answer with the render's error; the server goes on
// answering.
func TestServeSurvivesHostileTemplates(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"recurse": `{{ define "a" }}{{ if lt . 90000 }}{{ template "a" (add . 1) }}{{ else }}{{ include "a" 0 }}{{ end }}{{ end }}{{ template "a" 0 }}`,
		"ranges":  `{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}`,
		"fine":    `fine`,
	}
	fsys := fstest.MapFS{"schemas/any.schema.json": {Data: []byte(`{"type": "object"}`)}}
	for name, body := range bodies {
		fsys["templates/"+name+"/prompt.yaml"] = &fstest.MapFile{Data: []byte("schema: any\nsections: [body]\n")}
		fsys["templates/"+name+"/body.md.tmpl"] = &fstest.MapFile{Data: []byte(body)}
	}
	lib, err := engine.Load(fsys, engine.WithLimits(engine.Limits{Timeout: 200 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(lib))
	defer ts.Close()
	for range 2 {
		for _, c := range []struct{ variant, says string }{{"recurse", "too deeply"}, {"ranges", "deadline"}} {
			code, res := do(t, ts, "POST", "/v1/render/"+c.variant, "{}")
			if code < 400 || !strings.Contains(fmt.Sprint(res), c.says) {
				t.Errorf("%s: %d %v", c.variant, code, res)
			}
		}
		if code, res := do(t, ts, "POST", "/v1/render/fine", "{}"); code != 200 {
			t.Errorf("fine: %d %v", code, res)
		}
	}
}
