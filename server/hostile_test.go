package server_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// TestServeSurvivesHostileTemplates: templates that recurse through
// template and include in turn, or loop past the deadline in ranges that
// call nothing, answer with the render's error; the server goes on
// answering. Each is served under the deadline its bound needs: the
// recursion under one that only bounds a hang, so that the depth bound is
// what stops it however slow the machine (or the race detector) is.
func TestServeSurvivesHostileTemplates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		variant, body, says string
		timeout             time.Duration
	}{
		{"recurse", `{{ define "a" }}{{ if lt . 90000 }}{{ template "a" (add . 1) }}{{ else }}{{ include "a" 0 }}{{ end }}{{ end }}{{ template "a" 0 }}`, "too deeply", time.Minute},
		{"ranges", `{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}`, "deadline", 200 * time.Millisecond},
	} {
		fsys := fstest.MapFS{"schemas/any.schema.json": {Data: []byte(`{"type": "object"}`)}}
		for name, body := range map[string]string{c.variant: c.body, "fine": "fine"} {
			fsys["templates/"+name+"/prompt.yaml"] = &fstest.MapFile{Data: []byte("schema: any\nsections: [body]\n")}
			fsys["templates/"+name+"/body.md.tmpl"] = &fstest.MapFile{Data: []byte(body)}
		}
		lib, err := engine.Load(fsys, engine.WithLimits(engine.Limits{Timeout: c.timeout}))
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(server.New(lib))
		defer ts.Close()
		for range 2 {
			code, res := do(t, ts, "POST", "/v1/render/"+c.variant, "{}")
			if code < 400 || !strings.Contains(fmt.Sprint(res), c.says) {
				t.Errorf("%s: %d %v", c.variant, code, res)
			}
			if code, res := do(t, ts, "POST", "/v1/render/fine", "{}"); code != 200 {
				t.Errorf("fine after %s: %d %v", c.variant, code, res)
			}
		}
	}
}

// TestDefaultRenderTimeout: a server's bound on a request leaves the
// engine's own limit on a render the time to pass first, with room to wait
// for a slot, so that a template that loops is answered 500 (the
// template's fault), not 503 (retry).
func TestDefaultRenderTimeout(t *testing.T) {
	if s := server.New(fixture.Small(t)); s.RenderTimeout < engine.DefaultLimits().Timeout+time.Second {
		t.Errorf("RenderTimeout %s, engine's Timeout %s: a looping template would be answered 503", s.RenderTimeout, engine.DefaultLimits().Timeout)
	}
}
