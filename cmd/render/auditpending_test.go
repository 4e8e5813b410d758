package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// TestUnreachable: a database that does not answer is waited for; a store
// that cannot be opened for another reason is not.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused, as the store wraps it", &engine.Error{Kind: engine.KindUsage, Reason: "cannot open the audit store", Err: fmt.Errorf("failed to connect: %w", refused)}, true},
		{"no such host yet", &net.DNSError{Err: "no such host", Name: "db", IsNotFound: true}, true},
		{"a wrong password", &engine.Error{Kind: engine.KindUsage, Reason: "cannot open the audit store", Err: errors.New("password authentication failed")}, false},
		{"not an audit database", &engine.Error{Kind: engine.KindUsage, Reason: "cannot open the audit store: file is not a database"}, false},
	} {
		if got := unreachable(c.err); got != c.want {
			t.Errorf("%s: unreachable %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPendingAuditOpensOnceItAnswers: until the store opens, every call
// is unavailable; the first call after it answers opens it, once, and the
// calls after use it.
func TestPendingAuditOpensOnceItAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "audit.db")
	down, opens, opened := true, 0, 0
	p := &pendingAudit{retry: 0, opened: func() { opened++ }, open: func() (*audit.Store, error) {
		opens++
		if down {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		}
		return audit.Open(context.Background(), file)
	}}
	defer p.Close()
	for range 2 {
		if err := p.Ping(ctx); engine.AsError(err).Kind != engine.KindUnavailable || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("ping while down: %v", err)
		}
	}
	if _, err := p.Resolve(ctx, "abc"); engine.AsError(err).Kind != engine.KindUnavailable {
		t.Errorf("resolve while down: %v", err)
	}
	down = false
	if err := p.Ping(ctx); err != nil {
		t.Fatalf("ping once up: %v", err)
	}
	if _, err := p.Resolve(ctx, "abcdef"); !errors.Is(err, audit.ErrNotFound) {
		t.Errorf("resolve once up: %v, want not found", err)
	}
	if opens != 4 || opened != 1 {
		t.Errorf("%d attempts to open and %d opened, want 4 and 1", opens, opened)
	}
	// Within retry of a failed attempt, calls do not try again.
	p = &pendingAudit{retry: 1 << 62, open: func() (*audit.Store, error) {
		opens++
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}}
	opens = 0
	for range 3 {
		p.Ping(ctx)
	}
	if opens != 1 {
		t.Errorf("%d attempts within the retry interval, want 1", opens)
	}
}

// TestServeWaitsForItsAuditStore: render serve started while its
// PostgreSQL does not answer serves, not ready, instead of exiting:
// /livez 200, /readyz 503, and a render 503 with Retry-After.
func TestServeWaitsForItsAuditStore(t *testing.T) {
	t.Parallel()
	port, err := testpostgres.FreePort() // a port nobody answers on
	if err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--audit", fmt.Sprintf("postgres://promptsmith:secret@127.0.0.1:%d/audit?sslmode=disable&connect_timeout=2", port))
	get := func(path string) *http.Response {
		resp, err := http.Get("http://" + srv.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if r := get("/livez"); r.StatusCode != 200 {
		t.Errorf("/livez %d", r.StatusCode)
	}
	if r := get("/readyz"); r.StatusCode != 503 {
		t.Errorf("/readyz %d, want 503", r.StatusCode)
	}
	input, _ := os.ReadFile("../../templates/delegation/examples/minimal.yaml")
	resp, err := http.Post("http://"+srv.addr+"/v1/render/delegation", "application/yaml", strings.NewReader(string(input)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"unavailable"`) {
		t.Errorf("render while the store is down: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	srv.terminate(t)
	srv.wait(t)
}
