package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeDrainsOnSIGTERM: from SIGTERM on, the real render serve answers
// /readyz 503 while it still serves (/livez 200, renders 200), for the
// --drain-delay a load balancer needs to take it out. The delay here is
// long: the test ends the server itself once it has seen the drain, so
// nothing depends on timing.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--drain-delay", "10m")
	get := func(path string) int {
		t.Helper()
		resp, err := http.Get("http://" + srv.addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if get("/readyz") != 200 || get("/livez") != 200 || get("/healthz") != 200 {
		t.Fatal("not ready before SIGTERM")
	}
	srv.terminate(t)
	srv.waitLine(t, "shutting down")
	deadline := time.Now().Add(time.Minute) // bounds a hang only
	for get("/readyz") != 503 {
		if time.Now().After(deadline) {
			t.Fatal("/readyz never turned 503 after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if get("/livez") != 200 || get("/healthz") != 503 {
		t.Error("while draining, /livez must stay 200 and /healthz follow /readyz")
	}
	resp, err := http.Post("http://"+srv.addr+"/v1/render/delegation", "application/json", strings.NewReader(validInput))
	if err != nil || resp.StatusCode != 200 || !resp.Close {
		t.Errorf("a render while draining: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	srv.cmd.Process.Kill()
	srv.cmd.Wait()
}

// TestServeLogsJSON: under --log-format json every line the server writes
// is one JSON object, a request's naming its request id, which the answer
// gives in X-Request-Id too.
func TestServeLogsJSON(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--log-format", "json")
	resp, err := http.Post("http://"+srv.addr+"/v1/render/delegation", "application/json", strings.NewReader(validInput))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	srv.terminate(t)
	var lines []string
	for line := range srv.lines {
		lines = append(lines, line)
	}
	srv.cmd.Wait()
	found := false
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON line: %q", line)
			continue
		}
		if rec["msg"] == "request" && rec["request_id"] == id && id != "" && rec["delegation_id"] != nil {
			found = true
		}
	}
	if !found {
		t.Errorf("no request line with id %q:\n%s", id, strings.Join(lines, "\n"))
	}
}
