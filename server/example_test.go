package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
// (docs/go.md).
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
	ts := httptest.NewServer(srv) // or server.Serve(ctx, listener, srv, server.DefaultHTTPConfig())
	defer ts.Close()

	v, _ := lib.Variant("delegation")
	in, _ := v.Example("revoked-deploy")
	resp, err := http.Post(ts.URL+"/v1/render/delegation", "application/yaml", bytes.NewReader(in.Data))
	if err != nil {
		panic(err)
	}
	var res engine.Result
	json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	hash, _ := store.Resolve(context.Background(), res.IDs["delegation_id"])
	e, _ := store.Get(context.Background(), hash)
	fmt.Println(resp.StatusCode, e.Text == res.Text)
	// Output: 200 true
}
