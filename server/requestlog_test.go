package server_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// TestRequestLog: each request is logged once, as JSON, with the request
// id the answer's X-Request-Id gives (the caller's own, when it sent a
// usable one); 2xx at INFO, 4xx at WARN, 5xx at ERROR with the error's
// cause; a successful render names its ids.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	var out fixture.SyncBuffer
	srv.Logger = slog.New(slog.NewJSONHandler(&out, nil))
	fail := auditFailsWhenSet(srv)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ids := map[string]string{}
	for _, c := range []struct {
		name, method, path, body, id string
	}{
		{"ok", "POST", "/v1/render/delegation", input, "caller-id-1"},
		{"input", "POST", "/v1/render/delegation", `{"parent": {}}`, "bad id with spaces"},
		{"none", "GET", "/nope", "", ""},
		{"fault", "POST", "/v1/render/delegation", input, ""},
	} {
		fail.Store(c.name == "fault")
		resp, _ := call(t, ts, c.method, c.path, c.body, "", "X-Request-Id", c.id)
		ids[c.name] = resp.Header.Get("X-Request-Id")
	}
	if ids["ok"] != "caller-id-1" || ids["input"] == "" || strings.Contains(ids["input"], " ") || ids["none"] == ids["fault"] {
		t.Fatalf("request ids %v", ids)
	}
	lines := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("not one JSON object a line: %q", sc.Text())
		}
		id, _ := line["request_id"].(string)
		if id == "" {
			t.Errorf("a line without a request id: %s", sc.Text())
		}
		lines[id] = line
	}
	for name, want := range map[string]string{"ok": "INFO", "input": "WARN", "none": "WARN", "fault": "ERROR"} {
		line := lines[ids[name]]
		if line == nil || line["level"] != want {
			t.Errorf("%s: logged %v, want level %s", name, line, want)
		}
	}
	if l := lines[ids["ok"]]; l["delegation_id"] == nil || l["route"] != "POST /v1/render/{variant}" {
		t.Errorf("a render's line: %v", l)
	}
	if l := lines[ids["fault"]]; !strings.Contains(l["cause"].(string), "disk full") || l["status"] != float64(503) {
		t.Errorf("a fault's line: %v", l)
	}
	if len(lines) != 4 {
		t.Errorf("%d requests logged, want 4:\n%s", len(lines), out.String())
	}
}
