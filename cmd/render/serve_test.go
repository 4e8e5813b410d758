package main

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/server"
)

// syncBuffer is a bytes.Buffer the watcher goroutine and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatchReloads edits a working copy under a watching server: a good edit
// is served, a broken one is reported and the last good library kept.
func TestWatchReloads(t *testing.T) {
	dir := copyLibrary(t)
	var stderr syncBuffer
	a := &app{stderr: &stderr, templates: dir}
	lib, err := a.library()
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(lib)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := a.watch(ctx, srv); err != nil {
		t.Fatal(err)
	}
	render := func() string {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/render/delegation", strings.NewReader(validInput)))
		b, _ := io.ReadAll(rec.Result().Body)
		return string(b)
	}
	// waitFor polls until cond holds; the deadline only bounds a hung watcher.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("gave up waiting for %s; stderr: %s", what, stderr.String())
			}
		}
	}
	overview := filepath.Join(dir, "templates", "delegation", "overview.md.tmpl")
	b, _ := os.ReadFile(overview)
	os.WriteFile(overview, bytes.Replace(b, []byte("You are a subagent."), []byte("You are a reloaded subagent."), 1), 0o644)
	waitFor("the edit to be served", func() bool { return strings.Contains(render(), "You are a reloaded subagent.") })

	os.WriteFile(overview, []byte("{{ if }}"), 0o644)
	waitFor("the failed reload to be reported", func() bool { return strings.Contains(stderr.String(), "reload failed") })
	if !strings.Contains(render(), "You are a reloaded subagent.") {
		t.Error("a broken edit replaced the last good library")
	}
}
