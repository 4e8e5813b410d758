package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server"
)

// Serve the HTTP API with an audit store, as render serve does: every
// prompt is recorded before it is answered, and read back by its id
// (docs/go.md). The server is an http.Handler: give it to
// server.Serve(ctx, listener, srv, server.DefaultHTTPConfig()), as here
// to a request of a test.
func ExampleNew() {
	lib, _ := promptsmith.Library()
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	store, err := audit.Open(context.Background(), filepath.Join(dir, "audit.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	srv := server.New(lib)
	srv.Audit = store

	v, _ := lib.Variant("delegation")
	in, _ := v.Example("revoked-deploy")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/render/delegation", bytes.NewReader(in.Data)))
	var res engine.Result
	json.NewDecoder(rec.Body).Decode(&res)
	hash, _ := store.Resolve(context.Background(), res.IDs["delegation_id"])
	e, _ := store.Get(context.Background(), hash)
	fmt.Println(rec.Code, e.Text == res.Text)
	// Output: 200 true
}
