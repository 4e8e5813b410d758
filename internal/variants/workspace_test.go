package variants_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
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
	t.Parallel()
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
// order (not sorted), each under a heading of its own, one level below the
// section's, naming the file, and followed by its content without the
// white space at its end; a blank one is left out. The section names the
// parent.
func TestWorkspaceSharedFilesOrder(t *testing.T) {
	t.Parallel()
	files := [][2]string{
		{"zz-conventions.md", "Conventions body.\n\n\n"},
		{"empty.md", "\n"},
		{"architecture.md", "Architecture body."},
		{"api/schema.md", "```yaml\nopenapi: 3.1.0\n```\n"},
	}
	var shared []any
	for _, f := range files {
		shared = append(shared, map[string]any{"file": f[0], "content": f[1]})
	}
	in := workspaceInput()
	fixture.Set(in, "parent/shared_context", shared)
	res := mustRenderWorkspace(t, in)
	var section engine.Section
	for _, s := range res.Sections {
		if s.Name == "parent_context" {
			section = s
		}
	}
	var headings []engine.Heading
	for _, h := range res.Outline {
		if h.Offset >= section.Start && h.Offset < section.End {
			headings = append(headings, h)
		}
	}
	if len(headings) != 4 {
		t.Fatalf("headings in the parent context section: %+v, want the section's and one per file with content", headings)
	}
	kept := []int{0, 2, 3}
	for i, h := range headings[1:] {
		f := files[kept[i]]
		if h.Text != f[0] || h.Level != headings[0].Level+1 {
			t.Errorf("heading %d: %q at level %d, want %q at level %d", i+1, h.Text, h.Level, f[0], headings[0].Level+1)
		}
		end := section.End
		if i+2 < len(headings) {
			end = headings[i+2].Offset
		}
		_, body, _ := strings.Cut(res.Text[h.Offset:end], "\n")
		if got, want := strings.TrimLeft(body, "\n"), strings.TrimRight(f[1], " \t\n"); strings.TrimRight(got, "\n") != want {
			t.Errorf("under %s: %q, want the file's content %q", f[0], got, want)
		}
	}
	intro := res.Text[headings[0].Offset:headings[1].Offset]
	if !strings.Contains(intro, "Developer PM") || !strings.Contains(intro, "developer-pm") {
		t.Errorf("the section does not name the parent:\n%s", intro)
	}
	// Sections follow the seed's assembly order, the manifest's; those the
	// input has something for are there.
	got, order := sectionNames(res), fixture.Variant(t, "workspace").Manifest().Sections
	i := 0
	for _, name := range got {
		for i < len(order) && order[i] != name {
			i++
		}
	}
	if i == len(order) {
		t.Errorf("sections %q are not in the manifest's order %q", got, order)
	}
	for _, name := range []string{"prompt_files", "parent_context", "skills", "peers", "approval", "delegation_failure"} {
		if !slices.Contains(got, name) {
			t.Errorf("no section %s: sections %q", name, got)
		}
	}
}

// TestWorkspaceSkillFrontmatter: a skill is its SKILL.md without the
// frontmatter, in config order: a skill given with a frontmatter gives the
// prompt its body alone gives.
func TestWorkspaceSkillFrontmatter(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, skillMD, body string }{
		{"frontmatter", "---\nname: lint\ndescription: Lints the code\ntags: [go]\n---\nRun the linter.\n", "Run the linter.\n"},
		{"blank line after the frontmatter", "---\nname: lint\n---\n\n# Lint\n\nRun it.\n", "# Lint\n\nRun it.\n"},
		{"CRLF frontmatter", "---\r\nname: lint\r\n---\r\nRun the linter.\r\n", "Run the linter.\r\n"},
		{"no frontmatter", "Run the linter.\n\n---\n\nThen fix what it reports.\n", "Run the linter.\n\n---\n\nThen fix what it reports.\n"},
		{"frontmatter only", "---\nname: lint\n---\n", ""},
		{"a rule that is not at the start", "\n---\nname: lint\n---\nbody\n", "\n---\nname: lint\n---\nbody\n"},
	}
	render := func(skillMD string) *engine.Result {
		in := workspaceInput()
		in["skills"] = []any{
			map[string]any{"name": "first", "skill_md": "First.\n"},
			map[string]any{"name": "lint", "skill_md": skillMD},
		}
		return mustRenderWorkspace(t, in)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, bodyOnly := render(c.skillMD), render(c.body)
			if res.Text != bodyOnly.Text {
				t.Fatalf("skills section\n got %q\nwant %q, what the body alone gives", sectionText(res, "skills"), sectionText(bodyOnly, "skills"))
			}
			skills := sectionText(res, "skills")
			inOrder(t, "skills", skills, "first", "First.\n", "lint", c.body)
			if !strings.HasSuffix(skills, "\n"+c.body) {
				t.Errorf("the body is not the end of the skills section: %q", skills)
			}
			if strings.Contains(c.body, "name: lint") != strings.Contains(res.Text, "name: lint") {
				t.Errorf("frontmatter left in the prompt:\n%s", res.Text)
			}
		})
	}
}

// TestWorkspaceApproval: every workspace gets the approval section. A
// child's requests go to its parent, named by its name and id (by its id
// alone when it has no name), whether or not it is online; a root's go to
// the human, and it names no parent. A workspace with sub-workspaces gets
// a subsection on their requests. The settings show as given: the cost
// threshold with its currency (USD by default), authorized actions,
// further triggers, and the schema's default destructive examples unless
// the input gives others (none: no examples).
func TestWorkspaceApproval(t *testing.T) {
	t.Parallel()
	approval := func(change func(map[string]any)) (string, *engine.Result) {
		t.Helper()
		in := workspaceInput()
		change(in)
		res := mustRenderWorkspace(t, in)
		if !res.OK() {
			t.Errorf("checks: %+v", res.Checks)
		}
		text := sectionText(res, "approval")
		if text == "" {
			t.Fatalf("no approval section: sections %q", sectionNames(res))
		}
		return text, res
	}
	subsections := func(res *engine.Result) int {
		var s engine.Section
		for _, sec := range res.Sections {
			if sec.Name == "approval" {
				s = sec
			}
		}
		top, n := 0, 0
		for _, h := range res.Outline {
			if h.Offset >= s.Start && h.Offset < s.End {
				if top == 0 {
					top = h.Level
				} else if h.Level == top+1 {
					n++
				}
			}
		}
		return n
	}
	root := func(m map[string]any) { delete(m, "parent") }
	subs := func(m map[string]any) { fixture.Set(m, "workspace/has_sub_workspaces", true) }

	child, childRes := approval(func(map[string]any) {})
	inOrder(t, "a child's approval", child, "Developer PM", "developer-pm")
	if offline, _ := approval(func(m map[string]any) { fixture.Set(m, "parent/offline", true) }); offline != child {
		t.Errorf("an offline parent changed the approval section:\n%s", offline)
	}
	if unnamed, _ := approval(func(m map[string]any) { fixture.Set(m, "parent/name", nil) }); !strings.Contains(unnamed, "developer-pm") || strings.Contains(unnamed, "Developer PM") {
		t.Errorf("a parent without a name:\n%s", unnamed)
	}
	rootText, rootRes := approval(root)
	if strings.Contains(rootText, "developer-pm") || strings.Contains(rootText, "Developer PM") || rootText == child {
		t.Errorf("a root's approval names a parent, or is a child's:\n%s", rootText)
	}
	if !strings.Contains(rootText, "Frontend Agent") {
		t.Errorf("a root is not told it is the root under its name:\n%s", rootText)
	}
	for name, base := range map[string]*engine.Result{"child": childRes, "root": rootRes} {
		change := subs
		if name == "root" {
			change = func(m map[string]any) { root(m); subs(m) }
		}
		if _, res := approval(change); subsections(res) != subsections(base)+1 {
			t.Errorf("%s with sub-workspaces: %d subsections, want one more than without (%d)", name, subsections(res), subsections(base))
		}
	}

	threshold, _ := approval(func(m map[string]any) {
		m["approval"] = map[string]any{"cost_threshold": map[string]any{"amount": 50}}
	})
	inOrder(t, "cost threshold", threshold, "50 USD")
	threshold, _ = approval(func(m map[string]any) {
		m["approval"] = map[string]any{"cost_threshold": map[string]any{"amount": 12.5, "currency": "EUR"}}
	})
	inOrder(t, "cost threshold in EUR", threshold, "12.5 EUR")
	if threshold == child {
		t.Error("a cost threshold changes nothing")
	}

	defaults, _ := schemaValue(t, "workspace", "/properties/approval/properties/destructive_examples/default").([]any)
	if len(defaults) == 0 {
		t.Fatal("the schema gives no default destructive examples")
	}
	for _, ex := range defaults {
		if !strings.Contains(child, ex.(string)) {
			t.Errorf("the default destructive example %q is not shown", ex)
		}
	}
	custom, _ := approval(func(m map[string]any) {
		m["approval"] = map[string]any{
			"authorized_actions":   []any{"Deploy to staging"},
			"destructive_examples": []any{},
			"additional_triggers":  []any{"Anything that emails customers"},
		}
	})
	for _, ex := range defaults {
		if strings.Contains(custom, ex.(string)) {
			t.Errorf("no destructive examples given, but %q is shown", ex)
		}
	}
	for _, s := range []string{"Deploy to staging", "Anything that emails customers"} {
		if !strings.Contains(custom, s) || strings.Contains(child, s) {
			t.Errorf("%q shown: %t, want only where the input gives it", s, strings.Contains(custom, s))
		}
	}
}

// TestWorkspaceDelegationFailureLast: section 6 is appended to every prompt,
// as the last section, unchanged by the input; it holds the prompt's last
// top-level heading.
func TestWorkspaceDelegationFailureLast(t *testing.T) {
	t.Parallel()
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
		top := -1
		for i, h := range res.Outline {
			if h.Level <= 2 {
				top = i
			}
		}
		if top < 0 || res.Outline[top].Offset < last.Start {
			t.Errorf("%s: the delegation failure section has no heading of its own", ex)
		}
	}
}

func TestWorkspaceRefusals(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	if msg, d := e.Error(), schemaDescription(t, "workspace", "/properties/peers/items/properties/name"); !strings.Contains(msg, `add "name": `+d) {
		t.Errorf("the hint does not quote the schema's description %q: %s", d, msg)
	}
}
