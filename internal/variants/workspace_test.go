package variants_test

import (
	"context"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/fixture"
)

// workspaceInput is a valid input for a child workspace whose parent shared two
// files; tests change one thing each.
func workspaceInput() map[string]any {
	return map[string]any{
		"workspace": map[string]any{"id": "frontend-agent", "name": "Frontend Agent"},
		"prompt_files": []any{
			map[string]any{"file": "system-prompt.md", "content": "You are the Frontend Agent.\n"},
		},
		"parent": map[string]any{
			"id":   "developer-pm",
			"name": "Developer PM",
			"shared_context": []any{
				map[string]any{"file": "architecture.md", "content": "# Architecture\n\nReact and a REST API.\n"},
				map[string]any{"file": "conventions.md", "content": "# Conventions\n\nSmall pull requests.\n"},
			},
		},
		"skills": []any{
			map[string]any{"name": "Build React Components", "skill_md": "---\nname: Build React Components\n---\nBuild them from the design.\n"},
		},
		"peers": []any{
			map[string]any{"name": "Backend Agent", "description": "Builds the API.", "skills": []any{
				map[string]any{"name": "Build API Endpoints", "description": "Creates REST API endpoints with validation"},
			}},
		},
	}
}

func renderWorkspace(t *testing.T, in map[string]any) (*engine.Result, error) {
	t.Helper()
	return renderInput(t, "workspace", in)
}

func mustRenderWorkspace(t *testing.T, in map[string]any) *engine.Result {
	t.Helper()
	res, err := renderWorkspace(t, in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sectionNames(res *engine.Result) []string {
	var names []string
	for _, s := range res.Sections {
		names = append(names, s.Name)
	}
	return names
}

func sectionText(res *engine.Result, name string) string {
	for _, s := range res.Sections {
		if s.Name == name {
			return res.Text[s.Start:s.End]
		}
	}
	return ""
}

// TestWorkspaceParentContext: the section is there only for a child whose
// parent was online and shared a file with content; otherwise the prompt is
// the one a workspace without parent context gets.
func TestWorkspaceParentContext(t *testing.T) {
	files := func(fs ...string) []any {
		var out []any
		for i := 0; i < len(fs); i += 2 {
			out = append(out, map[string]any{"file": fs[i], "content": fs[i+1]})
		}
		return out
	}
	cases := []struct {
		name   string
		change func(map[string]any)
		want   bool
	}{
		{"online with files", func(m map[string]any) {}, true},
		{"root workspace", func(m map[string]any) { delete(m, "parent") }, false},
		{"parent offline, files given", func(m map[string]any) { fixture.Set(m, "parent/offline", true) }, false},
		{"parent offline, no files", func(m map[string]any) {
			fixture.Set(m, "parent/offline", true)
			fixture.Set(m, "parent/shared_context", nil)
		}, false},
		{"no shared_context field", func(m map[string]any) { fixture.Set(m, "parent/shared_context", nil) }, false},
		{"empty shared_context", func(m map[string]any) { fixture.Set(m, "parent/shared_context", []any{}) }, false},
		{"only blank files", func(m map[string]any) { fixture.Set(m, "parent/shared_context", files("a.md", "", "b.md", " \n\t\n")) }, false},
		{"offline is false", func(m map[string]any) { fixture.Set(m, "parent/offline", false) }, true},
		{"one file with content among blank ones", func(m map[string]any) {
			fixture.Set(m, "parent/shared_context", files("a.md", "\n", "b.md", "B"))
		}, true},
	}
	// What a child without parent context gets: the same input without files.
	bare := workspaceInput()
	fixture.Set(bare, "parent/shared_context", nil)
	without := mustRenderWorkspace(t, bare).Text

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := workspaceInput()
			c.change(in)
			res := mustRenderWorkspace(t, in)
			has := strings.Contains(res.Text, "## Parent Context")
			if has != c.want {
				t.Fatalf("## Parent Context present: %v, want %v\n%s", has, c.want, res.Text)
			}
			if got := sectionText(res, "parent_context") != ""; got != c.want {
				t.Errorf("section parent_context kept: %v, want %v (sections %q)", got, c.want, sectionNames(res))
			}
			if !c.want && c.name != "root workspace" && res.Text != without {
				t.Errorf("without parent context the prompt differs from a child's that has none:\n%s", res.Text)
			}
			if !res.OK() {
				t.Errorf("checks failed: %+v", res.Checks)
			}
		})
	}
}

// TestWorkspaceSharedFilesOrder: files come in the parent's shared_context
// order (not sorted), each under ### {file} inside ## Parent Context, and a
// blank one is left out.
func TestWorkspaceSharedFilesOrder(t *testing.T) {
	in := workspaceInput()
	fixture.Set(in, "parent/shared_context", []any{
		map[string]any{"file": "zz-conventions.md", "content": "Conventions body.\n\n\n"},
		map[string]any{"file": "empty.md", "content": "\n"},
		map[string]any{"file": "architecture.md", "content": "Architecture body."},
		map[string]any{"file": "api/schema.md", "content": "```yaml\nopenapi: 3.1.0\n```\n"},
	})
	res := mustRenderWorkspace(t, in)
	var under []string
	for _, h := range res.Outline {
		if h.Level == 3 && strings.HasPrefix(h.Path, "Parent Context > ") {
			under = append(under, h.Text)
		}
	}
	if want := "zz-conventions.md|architecture.md|api/schema.md"; strings.Join(under, "|") != want {
		t.Fatalf("### headings under Parent Context %q, want %q", under, want)
	}
	want := "\n\n## Parent Context\n\n" +
		"Your parent workspace, Developer PM (`developer-pm`), shares these files with its team: its project knowledge, such as architecture, conventions and API schemas. Rely on them in your work. Where they conflict with your own instructions above, follow your own instructions and point out the conflict to your parent.\n\n" +
		"### zz-conventions.md\n\nConventions body.\n\n" +
		"### architecture.md\n\nArchitecture body.\n\n" +
		"### api/schema.md\n\n```yaml\nopenapi: 3.1.0\n```"
	if got := sectionText(res, "parent_context"); got != want {
		t.Errorf("parent context section\n got %q\nwant %q", got, want)
	}
	// Sections follow the seed's assembly order.
	if got, want := strings.Join(sectionNames(res), " "), "prompt_files parent_context skills peers approval delegation_failure"; got != want {
		t.Errorf("sections %q, want %q", got, want)
	}
}

// TestWorkspaceSkillFrontmatter: a skill is its SKILL.md without the
// frontmatter, in config order.
func TestWorkspaceSkillFrontmatter(t *testing.T) {
	cases := []struct{ name, skillMD, body string }{
		{"frontmatter", "---\nname: lint\ndescription: Lints the code\ntags: [go]\n---\nRun the linter.\n", "Run the linter.\n"},
		{"blank line after the frontmatter", "---\nname: lint\n---\n\n# Lint\n\nRun it.\n", "# Lint\n\nRun it.\n"},
		{"CRLF frontmatter", "---\r\nname: lint\r\n---\r\nRun the linter.\r\n", "Run the linter.\r\n"},
		{"no frontmatter", "Run the linter.\n\n---\n\nThen fix what it reports.\n", "Run the linter.\n\n---\n\nThen fix what it reports.\n"},
		{"frontmatter only", "---\nname: lint\n---\n", ""},
		{"a rule that is not at the start", "\n---\nname: lint\n---\nbody\n", "\n---\nname: lint\n---\nbody\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := workspaceInput()
			in["skills"] = []any{
				map[string]any{"name": "first", "skill_md": "First.\n"},
				map[string]any{"name": "lint", "skill_md": c.skillMD},
			}
			res := mustRenderWorkspace(t, in)
			want := "\n\n## Skill: first\nFirst.\n" + "\n\n## Skill: lint\n" + c.body
			if got := sectionText(res, "skills"); got != want {
				t.Fatalf("skills section\n got %q\nwant %q", got, want)
			}
			if strings.Contains(c.body, "name: lint") != strings.Contains(res.Text, "name: lint") {
				t.Errorf("frontmatter left in the prompt:\n%s", res.Text)
			}
		})
	}
}

// TestWorkspaceApproval: every workspace gets the four triggers; a root is
// told it is the root and goes to the human, a child goes to its parent.
func TestWorkspaceApproval(t *testing.T) {
	const (
		rootText   = "You, Frontend Agent, are the root workspace: no workspace is above you."
		toHuman    = "go to the human user: pause the task and surface the request on the canvas"
		toParent   = "2. Send an approval request up to your parent workspace, Developer PM (`developer-pm`), over A2A"
		rootRelays = "when it reaches the root workspace, the root surfaces it to the human user on the canvas"
		subsHeader = "### Requests from Your Sub-Workspaces"
	)
	cases := []struct {
		name      string
		change    func(map[string]any)
		contains  []string
		forbidden []string
	}{
		{"child", func(m map[string]any) {},
			[]string{toParent, rootRelays, "If your parent cannot be reached, keep the action paused"},
			[]string{"are the root workspace", subsHeader}},
		{"child, parent offline", func(m map[string]any) { fixture.Set(m, "parent/offline", true) },
			[]string{toParent, rootRelays}, []string{"are the root workspace"}},
		{"child, parent without a name", func(m map[string]any) { fixture.Set(m, "parent/name", nil) },
			[]string{"2. Send an approval request up to your parent workspace, `developer-pm`, over A2A"}, []string{"Developer PM"}},
		{"root", func(m map[string]any) { delete(m, "parent") },
			[]string{rootText, toHuman, "Do not take the action, or any part of it, until the human approves."},
			[]string{"Send an approval request up to your parent", "escalated", subsHeader}},
		{"root with sub-workspaces", func(m map[string]any) {
			delete(m, "parent")
			fixture.Set(m, "workspace/has_sub_workspaces", true)
		}, []string{rootText, "Approval requests, your own and those your sub-workspaces escalate to you, go to the human user",
			subsHeader, "Escalate everything else to the human user on the canvas"},
			[]string{"to your parent"}},
		{"child with sub-workspaces", func(m map[string]any) { fixture.Set(m, "workspace/has_sub_workspaces", true) },
			[]string{toParent, subsHeader, "Escalate everything else to your parent with the sub-workspace's request unchanged"},
			[]string{"are the root workspace"}},
		{"cost threshold", func(m map[string]any) {
			m["approval"] = map[string]any{"cost_threshold": map[string]any{"amount": 50}}
		}, []string{"- **Above the cost threshold**: it is expected to cost more than 50 USD"}, []string{"No cost threshold"}},
		{"cost threshold in EUR with cents", func(m map[string]any) {
			m["approval"] = map[string]any{"cost_threshold": map[string]any{"amount": 12.5, "currency": "EUR"}}
		}, []string{"cost more than 12.5 EUR"}, nil},
		{"authorized actions and more triggers", func(m map[string]any) {
			m["approval"] = map[string]any{
				"authorized_actions":   []any{"Deploy to staging"},
				"destructive_examples": []any{},
				"additional_triggers":  []any{"Anything that emails customers"},
			}
		}, []string{
			"- **Destructive**: it deletes or overwrites data or removes infrastructure.\n",
			"These actions are authorized and need no approval unless another item of this list applies:\n  - Deploy to staging\n",
			"- **First-time**: you have not taken this kind of action before in this workspace.\n- Anything that emails customers\n",
		}, []string{"for example"}},
	}
	triggers := []string{"- **Destructive**:", "- **Not authorized**: your instructions above do not explicitly authorize it.", "- **First-time**:"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := workspaceInput()
			c.change(in)
			res := mustRenderWorkspace(t, in)
			text := sectionText(res, "approval")
			if !strings.HasPrefix(text, "\n\n## Human-in-the-Loop Approval\n") {
				t.Fatalf("no approval section: sections %q", sectionNames(res))
			}
			if !strings.Contains(text, "- **Above the cost threshold**:") && !strings.Contains(text, "- **Costly**:") {
				t.Error("no cost trigger")
			}
			for _, s := range append(triggers, c.contains...) {
				if !strings.Contains(text, s) {
					t.Errorf("approval section lacks %q:\n%s", s, text)
				}
			}
			for _, s := range c.forbidden {
				if strings.Contains(text, s) {
					t.Errorf("approval section has %q:\n%s", s, text)
				}
			}
		})
	}
}

// TestWorkspaceDelegationFailureLast: section 6 is appended to every prompt,
// as the last section, unchanged by the input.
func TestWorkspaceDelegationFailureLast(t *testing.T) {
	lib, v := fixture.Library(t), fixture.Variant(t, "workspace")
	var fixed string
	for _, ex := range v.Examples() {
		in, _ := v.Example(ex)
		res, err := lib.Render(context.Background(), "workspace", in)
		if err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		last := res.Sections[len(res.Sections)-1]
		if last.Name != "delegation_failure" || last.End != len(res.Text) {
			t.Fatalf("%s: the last section is %s", ex, last.Name)
		}
		text := res.Text[last.Start:]
		if fixed == "" {
			fixed = text
		} else if text != fixed {
			t.Errorf("%s: the delegation failure section depends on the input", ex)
		}
	}
	for _, s := range []string{"\n\n## Delegation Failure Handling\n", "offline", "times out", "unusable work", "### Retries", "### Never Drop a Sub-Task", "### Reporting to Your Caller"} {
		if !strings.Contains(fixed, s) {
			t.Errorf("the delegation failure section lacks %q", s)
		}
	}
}

func TestWorkspaceRefusals(t *testing.T) {
	peer := func(m map[string]any, i int) map[string]any { return m["peers"].([]any)[i].(map[string]any) }
	testRefusals(t, "workspace", workspaceInput, []refusal{
		{"peer card without a name", func(m map[string]any) { delete(peer(m, 0), "name") }, "/peers/0/name", "required field is missing"},
		{"peer card without a description", func(m map[string]any) { delete(peer(m, 0), "description") }, "/peers/0/description", "required field is missing"},
		{"peer skill without a description", func(m map[string]any) {
			delete(peer(m, 0)["skills"].([]any)[0].(map[string]any), "description")
		}, "/peers/0/skills/0/description", "required field is missing"},
		{"peer name over two lines", func(m map[string]any) { peer(m, 0)["name"] = "Backend\nAgent" }, "/peers/0/name", "does not match pattern"},
		{"two peers of the same name", func(m map[string]any) {
			m["peers"] = append(m["peers"].([]any), map[string]any{"name": "Backend Agent", "description": "again"})
		}, "/peers/1/name", "repeats"},
		{"a grandparent", func(m map[string]any) {
			fixture.Set(m, "parent/parent", map[string]any{"id": "business-core"})
		}, "/parent/parent", `unknown field "parent"`},
		{"shared file twice", func(m map[string]any) {
			m["parent"].(map[string]any)["shared_context"].([]any)[1].(map[string]any)["file"] = "architecture.md"
		}, "/parent/shared_context/1/file", "repeats"},
		{"shared file without content", func(m map[string]any) {
			delete(m["parent"].(map[string]any)["shared_context"].([]any)[0].(map[string]any), "content")
		}, "/parent/shared_context/0/content", "required field is missing"},
		{"parent without an id", func(m map[string]any) { fixture.Set(m, "parent/id", nil) }, "/parent/id", "required field is missing"},
		{"offline as a string", func(m map[string]any) { fixture.Set(m, "parent/offline", "yes") }, "/parent/offline", "expected boolean"},
		{"skill without SKILL.md", func(m map[string]any) {
			delete(m["skills"].([]any)[0].(map[string]any), "skill_md")
		}, "/skills/0/skill_md", "required field is missing"},
		{"the same skill twice", func(m map[string]any) {
			m["skills"] = append(m["skills"].([]any), map[string]any{"name": "Build React Components", "skill_md": "x"})
		}, "/skills/1/name", "repeats"},
		{"no prompt files", func(m map[string]any) { m["prompt_files"] = []any{} }, "/prompt_files", "minimum 1 items"},
		{"a blank prompt file", func(m map[string]any) {
			m["prompt_files"].([]any)[0].(map[string]any)["content"] = " \n\n"
		}, "/prompt_files/0/content", "does not match pattern"},
		{"the same prompt file twice", func(m map[string]any) {
			m["prompt_files"] = append(m["prompt_files"].([]any), map[string]any{"file": "system-prompt.md", "content": "x"})
		}, "/prompt_files/1/file", "repeats"},
		{"no workspace", func(m map[string]any) { delete(m, "workspace") }, "/workspace", "required field is missing"},
		{"a misspelt field", func(m map[string]any) {
			p := m["parent"].(map[string]any)
			p["shared_contex"] = p["shared_context"]
			delete(p, "shared_context")
		}, "/parent/shared_contex", `unknown field "shared_contex"`},
		{"currency in lower case", func(m map[string]any) {
			m["approval"] = map[string]any{"cost_threshold": map[string]any{"amount": 5, "currency": "usd"}}
		}, "/approval/cost_threshold/currency", "does not match pattern"},
		{"negative cost threshold", func(m map[string]any) {
			m["approval"] = map[string]any{"cost_threshold": map[string]any{"amount": -1}}
		}, "/approval/cost_threshold/amount", "must be >= 0"},
		{"a platform rule that is not text", func(m map[string]any) {
			m["platform"] = map[string]any{"rules": []any{42}}
		}, "/platform/rules/0", "expected string"},
	})
}

// TestWorkspaceErrorPosition: a refusal of a YAML file names the pointer, the
// line, and what the field is for.
func TestWorkspaceErrorPosition(t *testing.T) {
	in := "workspace: {id: pm, name: PM}\n" +
		"prompt_files:\n" +
		"  - {file: system-prompt.md, content: You are a PM.}\n" +
		"peers:\n" +
		"  - name: Frontend Agent\n" +
		"    description: Builds the web client.\n" +
		"  - description: Builds the API.\n"
	_, err := fixture.Library(t).Render(context.Background(), "workspace", engine.Input{Name: "pm.yaml", Data: []byte(in)})
	e := engine.AsError(err)
	if e == nil || e.Field != "/peers/1/name" || e.Position != "pm.yaml:7:5" {
		t.Fatalf("got %#v, want /peers/1/name at pm.yaml:7:5", e)
	}
	if msg := e.Error(); !strings.Contains(msg, `add "name": The peer's name`) {
		t.Errorf("the hint does not quote the schema's description: %s", msg)
	}
}
