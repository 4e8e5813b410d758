package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
	"github.com/promptsmith/promptsmith/server"
)

// auditedServer is builtinServer recording every render in the audit
// store at target, which closes when the test ends.
func auditedServer(t *testing.T, target string) (*server.Server, *audit.Store) {
	t.Helper()
	store, err := audit.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := builtinServer()
	srv.Audit = store
	return srv, store
}

// TestAuditEndpoints: a render recorded in a real SQLite store is read
// back over HTTP behind the token, by its delegation_id and by its hash,
// whole and as a chain; an unknown key is 404, as is any key on a server
// without a store.
func TestAuditEndpoints(t *testing.T) {
	t.Parallel()
	srv, store := auditedServer(t, filepath.Join(t.TempDir(), "audit.db"))
	srv.Token = "s3cret"
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := fetchDoc(t, ts, "s3cret")

	resp, body := call(t, ts, "POST", "/v1/render/delegation", input, "s3cret", "Content-Type", "application/json")
	var res struct {
		Text string
		IDs  map[string]string
	}
	if json.Unmarshal(body, &res); resp.StatusCode != 200 || res.IDs["delegation_id"] == "" {
		t.Fatalf("render: %d %.300s", resp.StatusCode, body)
	}
	id := res.IDs["delegation_id"]
	resp, body = call(t, ts, "GET", "/v1/audit/"+id, "", "s3cret")
	var e audit.Entry
	if json.Unmarshal(body, &e); resp.StatusCode != 200 || e.Text != res.Text || e.Variant != "delegation" || e.SHA256 != audit.Hash(res.Text) {
		t.Fatalf("GET /v1/audit/%s: %d %.300s", id, resp.StatusCode, body)
	}
	doc.check(t, "GET", "/v1/audit/"+id, resp, body)
	resp, body = call(t, ts, "GET", "/v1/audit/"+e.Hash[:16]+"/chain", "", "s3cret")
	var chain []audit.Entry
	if json.Unmarshal(body, &chain); resp.StatusCode != 200 || len(chain) != 2 || chain[0].Text != res.Text || chain[1].Text != "# P\n" {
		t.Fatalf("GET chain: %d %.500s", resp.StatusCode, body)
	}
	doc.check(t, "GET", "/v1/audit/"+e.Hash[:16]+"/chain", resp, body)
	for _, c := range []struct {
		path, token string
		code        int
	}{
		{"/v1/audit/" + id, "", 401},
		{"/v1/audit/dlg-nothing", "s3cret", 404},
		{"/v1/audit/dlg-nothing/chain", "s3cret", 404},
	} {
		resp, body := call(t, ts, "GET", c.path, "", c.token)
		if resp.StatusCode != c.code {
			t.Errorf("GET %s: %d, want %d: %s", c.path, resp.StatusCode, c.code, body)
		}
		doc.check(t, "GET", c.path, resp, body)
	}

	bare := httptest.NewServer(builtinServer())
	defer bare.Close()
	if resp, body := call(t, bare, "GET", "/v1/audit/"+id, "", ""); resp.StatusCode != 404 {
		t.Errorf("a server without a store: %d %s", resp.StatusCode, body)
	}
	if err := store.Ping(context.Background()); err != nil {
		t.Error(err)
	}
	m := scrape(t, ts, "s3cret")
	for _, name := range []string{"promptsmith_audit_db_connections_open", "promptsmith_audit_db_connections_in_use", "promptsmith_audit_db_waits_total"} {
		if m[name] == "" {
			t.Errorf("no %s in /metrics", name)
		}
	}
}

// TestAuditKeysOnEveryBackend: keys no prompt can have (a NUL, bytes that
// are not UTF-8) are 404 on SQLite and PostgreSQL alike, never a 503 and
// an ERROR line; a hash prefix shorter than audit.MinPrefix digits is 404
// saying so, even where it would match one prompt, and one of MinPrefix
// digits answers.
func TestAuditKeysOnEveryBackend(t *testing.T) {
	t.Parallel()
	targets := map[string]string{"sqlite": filepath.Join(t.TempDir(), "audit.db")}
	if os.Getenv("PROMPTSMITH_TEST_POSTGRES") != "" {
		targets["postgres"] = testpostgres.Schema(t, "server_keys_")
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			srv, store := auditedServer(t, target)
			var log bytes.Buffer
			srv.Logger = slog.New(slog.NewTextHandler(&log, nil))
			ts := httptest.NewServer(srv)
			defer ts.Close()
			resp, body := call(t, ts, "POST", "/v1/render/delegation", input, "", "Content-Type", "application/json")
			var res struct{ IDs map[string]string }
			if json.Unmarshal(body, &res); resp.StatusCode != 200 {
				t.Fatalf("render: %d %.300s", resp.StatusCode, body)
			}
			hash, err := store.Resolve(context.Background(), res.IDs["delegation_id"])
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				key  string
				code int
				says string
			}{
				{"a%00b", 404, "no prompt"},
				{"%00", 404, "no prompt"},
				{"%ff%fe", 404, "no prompt"},
				{"a%00b/chain", 404, "no prompt"},
				{hash[:1], 404, "8 hex digits"},
				{hash[:7] + "/chain", 404, "8 hex digits"},
				{hash[:8], 200, ""},
				{hash, 200, ""},
			} {
				resp, body := call(t, ts, "GET", "/v1/audit/"+c.key, "", "")
				if resp.StatusCode != c.code || !strings.Contains(string(body), c.says) {
					t.Errorf("GET /v1/audit/%s: %d %.300s, want %d saying %q", c.key, resp.StatusCode, body, c.code, c.says)
				}
			}
			if strings.Contains(log.String(), "level=ERROR") {
				t.Errorf("malformed keys logged an error:\n%s", log.String())
			}
		})
	}
}
