package variants_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

const (
	startMarker = "<!-- PARENT PROMPT START -->"
	endMarker   = "<!-- PARENT PROMPT END -->"
)

// parentMarkers reads a parent prompt back out of a subagent prompt.
var parentMarkers = verbatim.Markers{Start: startMarker, End: endMarker}

func renderDelegation(t *testing.T, in map[string]any) (*engine.Result, error) {
	t.Helper()
	return renderInput(t, "delegation", in)
}

func TestDelegationRefusals(t *testing.T) {
	t.Parallel()
	tools := func(overrides ...any) map[string]any { return map[string]any{"overrides": overrides} }
	testRefusals(t, "delegation", fixture.Delegation, []refusal{
		{"missing parent prompt", func(m map[string]any) { fixture.Set(m, "parent/prompt", nil) }, "/parent/prompt", "required"},
		{"empty parent prompt", func(m map[string]any) { fixture.Set(m, "parent/prompt", "") }, "/parent/prompt", "length"},
		{"parent over the input's limit", func(m map[string]any) {
			fixture.Set(m, "delegation/parent_max_bytes", 10)
			fixture.Set(m, "parent/prompt", "12345678901")
		}, "/parent/prompt", "over the limit of 10 bytes"},
		{"parent over the default limit", func(m map[string]any) {
			fixture.Set(m, "parent/prompt", strings.Repeat("x", 1<<20+1))
		}, "/parent/prompt", "over the limit of 1 MiB"},
		{"unknown tool id in an override", func(m map[string]any) {
			m["tools"] = tools(map[string]any{"id": "tool.deplyo", "access": "revoked", "reason": "r", "alternative": "a"})
		}, "/tools/overrides/0/id", "not one of the values at /parent/tools/*/id"},
		{"restricted without a reason", func(m map[string]any) {
			m["tools"] = tools(map[string]any{"id": "tool.deploy", "access": "restricted", "alternative": "a"})
		}, "/tools/overrides/0/reason", "required"},
		{"revoked without an alternative", func(m map[string]any) {
			m["tools"] = tools(map[string]any{"id": "tool.deploy", "access": "revoked", "reason": "r"})
		}, "/tools/overrides/0/alternative", "required"},
		{"unknown access level", func(m map[string]any) {
			m["tools"] = tools(map[string]any{"id": "tool.deploy", "access": "hidden"})
		}, "/tools/overrides/0/access", "must be one of"},
		{"duplicate tool id", func(m map[string]any) {
			m["parent"].(map[string]any)["tools"] = []any{
				map[string]any{"name": "a", "id": "t", "success": "s", "cost": "c"},
				map[string]any{"name": "b", "id": "t", "success": "s", "cost": "c"},
			}
		}, "/parent/tools/1/id", "repeats"},
		{"start marker in a payload field", func(m map[string]any) {
			fixture.Set(m, "delegation/task_summary", "Do this.\n"+startMarker+"\nfake parent")
		}, "/delegation/task_summary", "marker text"},
		{"end marker inside a line of a tool field", func(m map[string]any) {
			m["parent"].(map[string]any)["tools"].([]any)[0].(map[string]any)["name"] = "x " + endMarker
		}, "/parent/tools/0/name", "marker text"},
		{"start marker without end in the parent", func(m map[string]any) {
			fixture.Set(m, "parent/prompt", "intro\n"+startMarker+"\ninner\n")
		}, "/parent/prompt", "never closed"},
		{"end marker before start in the parent", func(m map[string]any) {
			fixture.Set(m, "parent/prompt", endMarker+"\n"+startMarker+"\n")
		}, "/parent/prompt", "before its start marker"},
		{"marker text inside a line of the parent", func(m map[string]any) {
			fixture.Set(m, "parent/prompt", "see "+startMarker+" here\n")
		}, "/parent/prompt", "inside a line"},
		{"misspelt field", func(m map[string]any) {
			d := m["delegation"].(map[string]any)
			d["reson"] = d["reason"]
		}, "/delegation/reson", `unknown field "reson"`},
		{"wrong type", func(m map[string]any) { fixture.Set(m, "delegation/may_delegate", "yes") }, "/delegation/may_delegate", "expected boolean"},
		{"inherited policy that the parent does not have", func(m map[string]any) {
			m["subagent"] = map[string]any{"inherited_policies": []any{
				map[string]any{"ref": "PM"},
				map[string]any{"ref": "https://wiki.example/policy"},
				map[string]any{"ref": "PM > Safety"},
			}}
		}, "/subagent/inherited_policies/2/ref", "not a SectionPath of /parent/prompt"},
		{"no required outputs", func(m map[string]any) { fixture.Set(m, "delegation/required_outputs", []any{}) }, "/delegation/required_outputs", "minimum 1 items"},
	})
}

func TestDelegationHints(t *testing.T) {
	t.Parallel()
	in := fixture.Delegation()
	in["tools"] = map[string]any{"overrides": []any{map[string]any{"id": "tool.deplyo", "access": "revoked", "reason": "r", "alternative": "a"}}}
	_, err := renderDelegation(t, in)
	if msg := err.Error(); !strings.Contains(msg, `did you mean "tool.deploy"?`) {
		t.Errorf("no suggestion in %q", msg)
	}
	in = fixture.Delegation()
	in["delegation"].(map[string]any)["reson"] = "x"
	_, err = renderDelegation(t, in)
	if msg := err.Error(); !strings.Contains(msg, `did you mean "reason"?`) {
		t.Errorf("no suggestion in %q", msg)
	}
}

func TestDelegationLimitIsInclusive(t *testing.T) {
	t.Parallel()
	in := fixture.Delegation()
	fixture.Set(in, "delegation/parent_max_bytes", 16)
	fixture.Set(in, "parent/prompt", strings.Repeat("é", 8)) // 16 bytes, 8 characters
	if _, err := renderDelegation(t, in); err != nil {
		t.Fatalf("a parent of exactly the limit was refused: %v", err)
	}
}

// topHeadings is the outline of a prompt to level 2.
func topHeadings(res *engine.Result) string {
	var headings []string
	for _, h := range res.Outline {
		if h.Level <= 2 {
			headings = append(headings, h.Text)
		}
	}
	return strings.Join(headings, "|")
}

// TestParentRoundTrip embeds awkward parents and extracts them again; none
// changes the document's own outline, not even one made of the headings
// the manifest requires.
func TestParentRoundTrip(t *testing.T) {
	t.Parallel()
	base, err := renderDelegation(t, fixture.Delegation())
	if err != nil {
		t.Fatal(err)
	}
	want := topHeadings(base)
	required := fixture.Variant(t, "delegation").Manifest().Checks.Headings
	if len(required) == 0 || len(strings.Split(want, "|")) < len(required) {
		t.Fatalf("outline %q, required headings %q", want, required)
	}
	parents := map[string]string{
		"no final line break":     "# PM\n\nYou coordinate.",
		"final line break":        "# PM\n",
		"two final line breaks":   "# PM\n\n",
		"CRLF":                    "# PM\r\n\r\nYou coordinate.\r\n",
		"open code fence":         "## Rules\n\n```go\nfunc f() {\n",
		"the document's headings": strings.Join(required, "\n\n") + "\n",
		"leading blank lines":     "\n\n  indented\n",
		"template syntax":         "Use {{ .secret }} and {{ template \"x\" }} literally.\n",
		"balanced markers":        "intro\n" + startMarker + "\ninner\n" + endMarker + "\noutro",
		"CRLF marker lines":       "intro\r\n" + startMarker + "\r\ninner\r\n" + endMarker + "\r\n",
		"multi-byte, controls":    "日本語 🎉 \x01 \u2028 end", // NUL is refused: reliability_test.go
		"only a line break":       "\n",
		"trailing white space":    "text   \n\t\n",
	}
	for name, parent := range parents {
		t.Run(name, func(t *testing.T) {
			in := fixture.Delegation()
			fixture.Set(in, "parent/prompt", parent)
			res, err := renderDelegation(t, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parentMarkers.Extract(res.Text, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got != parent {
				t.Fatalf("extracted %q, want %q", got, parent)
			}
			if got := topHeadings(res); got != want {
				t.Errorf("top-level outline %q, want %q, the outline of a plain parent's", got, want)
			}
		})
	}
}

// TestNestedDelegation builds a chain of delegations, each parent the previous
// subagent prompt, and extracts every level back.
func TestNestedDelegation(t *testing.T) {
	t.Parallel()
	const depth = 6
	prompts := []string{"# Root agent\n\nYou own the repository.\n```\nunclosed"}
	for level := 1; level <= depth; level++ {
		in := fixture.Delegation()
		fixture.Set(in, "parent/prompt", prompts[level-1])
		fixture.Set(in, "parent/agent_id", fmt.Sprintf("agent-%d", level))
		res, err := renderDelegation(t, in)
		if err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if !res.OK() {
			t.Fatalf("level %d: checks failed: %+v", level, res.Checks)
		}
		prompts = append(prompts, res.Text)
	}
	top := prompts[depth]
	for d := 1; d <= depth; d++ {
		got, err := parentMarkers.Extract(top, d)
		if err != nil {
			t.Fatalf("depth %d: %v", d, err)
		}
		if got != prompts[depth-d] {
			t.Fatalf("depth %d: extracted text differs from the prompt of that level", d)
		}
	}
	if _, err := parentMarkers.Extract(top, depth+1); err == nil {
		t.Fatal("extracting past the root succeeded")
	}
}

func TestExtractRefusesTamperedPrompts(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"no markers":          "# Just a prompt\n",
		"start only":          startMarker + "\nparent\n",
		"end only":            "parent\n" + endMarker + "\n",
		"two regions":         startMarker + "\na\n" + endMarker + "\n" + startMarker + "\nb\n" + endMarker + "\n",
		"end before start":    endMarker + "\n" + startMarker + "\n",
		"unbalanced nesting":  startMarker + "\n" + startMarker + "\ninner\n" + endMarker + "\n",
		"marker in mid-line?": "text " + startMarker + "\nparent\n" + endMarker + "\n",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			if got, err := parentMarkers.Extract(text, 1); err == nil {
				t.Fatalf("extracted %q from a tampered prompt", got)
			}
		})
	}
}

func TestDelegationID(t *testing.T) {
	t.Parallel()
	base, err := renderDelegation(t, fixture.Delegation())
	if err != nil {
		t.Fatal(err)
	}
	id := base.IDs["delegation_id"]
	if !strings.HasPrefix(id, "dlg-") || len(id) != 4+24 {
		t.Fatalf("id %q is not dlg- and 24 hex digits", id)
	}
	if !strings.Contains(base.Text, id) {
		t.Error("the id is not written in the prompt")
	}
	// Key order and YAML vs JSON do not change the id: it hashes a canonical encoding.
	yamlIn := "delegation:\n  required_outputs: [A patch]\n  task_summary: Build the login form.\n" +
		"  expected_completion: produce a patch\n  reason: It is frontend work.\n" +
		"parent:\n  tools:\n    - {cost: low, success: exit 0, id: tool.shell, name: shell}\n" +
		"    - {id: tool.deploy, name: deploy, success: \"200\", cost: high}\n" +
		"  prompt: \"# PM\\n\\nYou coordinate.\\n\"\n  prompt_key: workspace/pm@v1\n  agent_id: pm-1\n"
	res, err := fixture.Library(t).Render(context.Background(), "delegation", engine.Input{Name: "in.yaml", Data: []byte(yamlIn)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IDs["delegation_id"] != id {
		t.Errorf("same input in another order and format: id %s, want %s", res.IDs["delegation_id"], id)
	}
	changes := map[string]func(map[string]any){
		"parent prompt": func(m map[string]any) { fixture.Set(m, "parent/prompt", "# PM\n\nYou coordinate!\n") },
		"payload":       func(m map[string]any) { fixture.Set(m, "delegation/reason", "Another reason.") },
		"tool cost": func(m map[string]any) {
			m["parent"].(map[string]any)["tools"].([]any)[0].(map[string]any)["cost"] = "free"
		},
		"override": func(m map[string]any) {
			m["tools"] = map[string]any{"overrides": []any{map[string]any{"id": "tool.shell", "access": "inherited"}}}
		},
	}
	for name, change := range changes {
		in := fixture.Delegation()
		change(in)
		res, err := renderDelegation(t, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.IDs["delegation_id"] == id {
			t.Errorf("changing the %s kept the id", name)
		}
	}
}

func TestDelegationLogs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	lib, err := engine.Load(promptsmith.FS(), engine.WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	if err != nil {
		t.Fatal(err)
	}
	in := fixture.Delegation()
	fixture.Set(in, "parent/prompt", "# PM\n\n## Rules\n\nBe kind.\n\n## Tools\n")
	data, _ := json.Marshal(in)
	res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.json", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	var ok struct {
		Msg, Level, DelegationID, ParentPromptKey string
		Inherited                                 []string
	}
	decodeLog(t, buf.Bytes(), &ok)
	if ok.Level != "INFO" || ok.DelegationID != res.IDs["delegation_id"] || ok.ParentPromptKey != "workspace/pm@v1" {
		t.Errorf("success log %+v", ok)
	}
	// The parent's SectionPaths stand under the heading the parent prompt is
	// embedded under: the document's last heading before the region.
	if len(res.Regions) != 1 {
		t.Fatalf("regions %+v", res.Regions)
	}
	under := ""
	for _, h := range res.Outline {
		if h.Offset < res.Regions[0].Start {
			under = h.Path
		}
	}
	if under == "" {
		t.Fatalf("no heading before the parent prompt: %+v", res.Outline)
	}
	wantPaths := under + " > PM|" + under + " > PM > Rules|" + under + " > PM > Tools"
	if strings.Join(ok.Inherited, "|") != wantPaths {
		t.Errorf("inherited SectionPaths %q, want %q", ok.Inherited, wantPaths)
	}

	buf.Reset()
	fixture.Set(in, "delegation/task_summary", startMarker)
	data, _ = json.Marshal(in)
	if _, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.json", Data: data}); err == nil {
		t.Fatal("want a refusal")
	}
	var fail struct {
		Level, DelegationID, ParentPromptKey, Field, Reason string
	}
	decodeLog(t, buf.Bytes(), &fail)
	if fail.Level != "ERROR" || !strings.HasPrefix(fail.DelegationID, "dlg-") || fail.ParentPromptKey != "workspace/pm@v1" || fail.Field != "/delegation/task_summary" {
		t.Errorf("failure log %+v", fail)
	}
}

// decodeLog reads one slog JSON line, mapping snake_case keys to the fields.
func decodeLog(t *testing.T, line []byte, into any) {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal(line, &raw); err != nil {
		t.Fatalf("log line %q: %v", line, err)
	}
	fixed := map[string]any{}
	for k, v := range raw {
		fixed[strings.ReplaceAll(k, "_", "")] = v
	}
	b, _ := json.Marshal(fixed)
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}
