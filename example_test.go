package promptsmith_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/tokens"
)

// Render a delegation prompt from the embedded library: the input is the
// JSON (or YAML) a runtime sends, the result the prompt and what is known
// about it.
func Example() {
	lib, err := promptsmith.Library()
	if err != nil {
		panic(err)
	}
	body := []byte(`{
	  "parent": {"agent_id": "pm-1", "prompt_key": "workspace/pm@v1", "prompt": "# PM\n\nYou coordinate.\n"},
	  "delegation": {"reason": "It is frontend work.", "expected_completion": "a patch",
	                 "task_summary": "Build the login form.", "required_outputs": ["A patch"]}
	}`)
	res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "req.json", Data: body})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.OK(), res.IDs["delegation_id"])
	// The parent's prompt stands in the subagent's byte for byte.
	vb, _ := lib.VerbatimRegion("delegation", "")
	parent, _ := verbatim.Of(vb).Extract(res.Text, 1)
	fmt.Printf("%q\n", parent)
	// Output:
	// true dlg-e91e9e52e2df0d8910f38019
	// "# PM\n\nYou coordinate.\n"
}

// A mistake in the input is an *engine.Error naming the field, as the
// docs/go.md shows; its kind says who must act.
func Example_errors() {
	lib, _ := promptsmith.Library()
	_, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "req.json", Data: []byte(`{"parent": {}}`)})
	var e *engine.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, e.Field)
	}
	// Output: input /delegation
}

// A caller's own deadline or cancellation comes back as kind cancelled,
// with the context's error in the chain: never the library's fault.
func Example_deadline() {
	lib, _ := promptsmith.Library()
	v, _ := lib.Variant("delegation")
	in, _ := v.Example("revoked-deploy")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the caller gave up
	_, err := v.Render(ctx, in)
	var e *engine.Error
	errors.As(err, &e)
	fmt.Println(e.Kind, errors.Is(err, context.Canceled))
	// Output: cancelled true
}

// Fit a prompt to a number of tokens, as docs/cli.md's "Fitting a token
// budget" does from Go: res.Budget says what was cut.
func Example_fitTokens() {
	lib, _ := promptsmith.Library()
	counter, err := tokens.New("o200k_base")
	if err != nil {
		panic(err)
	}
	v, _ := lib.Variant("space")
	in, _ := v.Example(v.Examples()[0])
	full, _ := v.Render(context.Background(), in, engine.CountTokens(counter))
	res, err := v.Render(context.Background(), in, engine.FitTokens(full.Tokens-1, counter))
	if err != nil {
		var e *engine.Error
		errors.As(err, &e)
		fmt.Println(e.Kind) // nothing left to cut: the minimum does not fit
		return
	}
	fmt.Println(res.Budget.Tokens <= res.Budget.MaxTokens, len(res.Budget.Cuts) > 0)
	// Output: true true
}

// Load a working copy for a service that must serve it whole: with
// engine.Strict, LoadDir fails on any variant that does not load.
func Example_loadDirStrict() {
	dir, _ := os.MkdirTemp("", "library")
	defer os.RemoveAll(dir)
	os.CopyFS(dir, promptsmith.FS())
	os.WriteFile(filepath.Join(dir, "templates", "delegation", "prompt.yaml"), []byte("sections: [\n"), 0o644)
	if _, err := engine.LoadDir(dir); err == nil {
		fmt.Println("without Strict: loads; the broken variant fails when rendered")
	}
	_, err := engine.LoadDir(dir, engine.Strict())
	var e *engine.Error
	errors.As(err, &e)
	fmt.Println("with Strict:", e.Kind, e.Variant)
	// Output:
	// without Strict: loads; the broken variant fails when rendered
	// with Strict: template delegation
}
