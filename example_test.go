package promptsmith_test

import (
	"context"
	"fmt"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
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
