package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// TestChainIsReconstructed records only the last subagent prompt of a
// three-level chain and reads the whole chain back from its delegation_id.
func TestChainIsReconstructed(t *testing.T) {
	lib, err := promptsmith.Library()
	if err != nil {
		t.Fatal(err)
	}
	store, err := audit.Open(filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	prompts := []string{"# Root\n\nYou own the work.\n"}
	var last *engine.Result
	for level := 1; level <= 3; level++ {
		in := map[string]any{
			"parent":     map[string]any{"agent_id": "a", "prompt_key": "k", "prompt": prompts[level-1]},
			"delegation": map[string]any{"reason": "r", "expected_completion": "e", "task_summary": "t", "required_outputs": []string{"x"}},
		}
		data, _ := json.Marshal(in)
		last, err = lib.Render(context.Background(), "delegation", engine.Input{Name: "in", Data: data})
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, last.Text)
	}
	v, _ := lib.Variant("delegation")
	hash, err := store.Record(v, last)
	if err != nil {
		t.Fatal(err)
	}
	if hash != audit.Hash(last.Text) {
		t.Fatal("the record is not addressed by the hash of its text")
	}
	key, err := store.Resolve(last.IDs["delegation_id"])
	if err != nil || key != hash {
		t.Fatalf("resolve by delegation_id: %q %v", key, err)
	}
	if key, err := store.Resolve(hash[:10]); err != nil || key != hash {
		t.Fatalf("resolve by a hash prefix: %q %v", key, err)
	}
	chain, err := store.Chain(hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) != 4 {
		t.Fatalf("chain of %d, want 4", len(chain))
	}
	for i, e := range chain {
		if e.Text != prompts[3-i] {
			t.Errorf("link %d differs from the prompt of that level", i)
		}
	}
	if chain[0].Variant != "delegation" || chain[0].IDs["delegation_id"] != last.IDs["delegation_id"] || chain[3].Variant != "" {
		t.Errorf("metadata: %v / %v", chain[0], chain[3])
	}
	// Recording again is idempotent.
	if _, err := store.Record(v, last); err != nil {
		t.Fatal(err)
	}
	if again, _ := store.Chain(hash); len(again) != 4 {
		t.Errorf("second record changed the chain to %d links", len(again))
	}
	_, err = store.Resolve("dlg-nothing")
	if !errors.Is(err, audit.ErrNotFound) || !strings.Contains(err.Error(), "dlg-nothing") {
		t.Errorf("missing key: %v", err)
	}
}

func TestOpenErrorNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "a.db")
	_, err := audit.Open(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v", err)
	}
}
