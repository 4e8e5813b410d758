package variants_test

import (
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// seedBuildSystemPrompt is the build_system_prompt of seed 000 (Molecule AI,
// docs/agent-runtime/system-prompt-structure.md), transcribed statement by
// statement, with the same string concatenation:
//
//	async def build_system_prompt(config_path: Path) -> str:
//	    # 1. own identity
//	    prompt = load_markdown(config_path / "system-prompt.md")
//	    # 2. own skills
//	    for skill in loaded_skills:
//	        prompt += f"\n\n## Skill: {skill.name}\n{skill.instructions}"
//	    # 3. reachable workspace capabilities
//	    peers = await platform.get(f"/registry/{WORKSPACE_ID}/peers")
//	    for peer in peers:
//	        card = peer["agent_card"]
//	        prompt += f"\n\n## Available Workspace: {card['name']}\n"
//	        prompt += f"Description: {card['description']}\n"
//	        for skill in card.get("skills", []):
//	            prompt += f"- {skill['name']}: {skill['description']}\n"
//	    return prompt
//
// systemPromptMD is what load_markdown returned (the file's text), each
// skill's instructions the body of its SKILL.md, and peers the registry's
// answer: a list of {"agent_card": {...}}.
func seedBuildSystemPrompt(systemPromptMD string, loadedSkills []seedSkill, peers []map[string]any) string {
	// 1. own identity
	prompt := systemPromptMD
	// 2. own skills
	for _, skill := range loadedSkills {
		prompt += "\n\n## Skill: " + skill.name + "\n" + skill.instructions
	}
	// 3. reachable workspace capabilities
	for _, peer := range peers {
		card := peer["agent_card"].(map[string]any)
		prompt += "\n\n## Available Workspace: " + card["name"].(string) + "\n"
		prompt += "Description: " + card["description"].(string) + "\n"
		skills, ok := card["skills"].([]any) // card.get("skills", [])
		if !ok {
			skills = []any{}
		}
		for _, s := range skills {
			skill := s.(map[string]any)
			prompt += "- " + skill["name"].(string) + ": " + skill["description"].(string) + "\n"
		}
	}
	return prompt
}

// seedSkill is a loaded skill as the seed sees it. frontmatter is the YAML
// block its SKILL.md starts with (possibly none); the file is frontmatter +
// instructions, and the variant gets the whole file.
type seedSkill struct{ name, frontmatter, instructions string }

func card(name, description string, skills ...[2]string) map[string]any {
	c := map[string]any{"name": name, "description": description}
	if skills != nil {
		list := []any{}
		for _, s := range skills {
			list = append(list, map[string]any{"name": s[0], "description": s[1]})
		}
		c["skills"] = list
	}
	return map[string]any{"agent_card": c}
}

// TestWorkspaceMatchesSeed renders inputs that have only what the seed's
// build_system_prompt knows about (a system-prompt.md, skills, peers) and
// wants the prompt to be exactly what that function returns, followed by the
// two sections the seed appends on top of it: Human-in-the-Loop Approval and
// Delegation Failure Handling. Nothing of the variant may come between the
// prompt file, the skills and the peer cards.
func TestWorkspaceMatchesSeed(t *testing.T) {
	t.Parallel()
	const pm = "You are a Developer PM. You coordinate a development team to build features.\n" +
		"When you receive a task, break it into sub-tasks and delegate to your team.\n" +
		"Always review work before reporting completion to the caller.\n"
	review := seedSkill{"review-pull-request",
		"---\nname: review-pull-request\ndescription: Review a pull request\ntags: [review]\n---\n",
		"# Review a Pull Request\n\n1. Read the task, then the diff.\n2. Approve or request changes.\n"}
	plan := seedSkill{"Plan Sprint", "",
		"Split the backlog into tasks of at most a day, and give each an owner.\n"}
	frontend := card("Frontend Agent", "Builds the web client", [2]string{"Build React Components", "Creates React components from Figma designs"})
	backend := card("Backend Agent", "Builds the API", [2]string{"Build API Endpoints", "Creates REST API endpoints with validation"},
		[2]string{"Write Migrations", "Changes the database schema"})
	qa := card("QA Agent", "Tests what the team builds", [2]string{"Run Test Suite", "Executes automated tests and reports results"})

	cases := []struct {
		name   string
		prompt string
		skills []seedSkill
		peers  []map[string]any
	}{
		{"identity only", pm, nil, nil},
		{"skills, no peers", pm, []seedSkill{review, plan}, nil},
		{"peers, no skills", pm, nil, []map[string]any{frontend, backend}},
		{"the seed's Developer PM", pm, []seedSkill{review, plan}, []map[string]any{frontend, backend, qa}},
		{"awkward text", "You are X.\r\nNo final line break", []seedSkill{
			{"empty body", "---\nname: empty body\n---\n", ""},
			{"blank line after the frontmatter", "---\r\nname: crlf\r\n---\r\n\r\n", "Body with CRLF\r\nand no final line break"},
			{"Unicode ✓", "", "Literal {{ .template }} syntax, `code` and | pipes |.\n\n\n"},
		}, []map[string]any{
			card("No Skills Key", "A card without \"skills\""),
			card("Empty Skills", "", [2]string{"Blank description", ""}),
			card("Ünïcode 🚀", "Description: with {{ braces }} and ## hashes\nover two lines", [2]string{"a: b", "c: d"}),
		}},
	}
	var tail string // the variant's own sections, the same for every case
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := seedBuildSystemPrompt(c.prompt, c.skills, c.peers)

			in := map[string]any{
				"workspace":    map[string]any{"id": "developer-pm", "name": "Developer PM"},
				"prompt_files": []any{map[string]any{"file": "system-prompt.md", "content": c.prompt}},
			}
			var skills, peers []any
			for _, s := range c.skills {
				skills = append(skills, map[string]any{"name": s.name, "skill_md": s.frontmatter + s.instructions})
			}
			for _, p := range c.peers {
				peers = append(peers, p["agent_card"])
			}
			if skills != nil {
				in["skills"] = skills
			}
			if peers != nil {
				in["peers"] = peers
			}
			res, err := renderWorkspace(t, in)
			if err != nil {
				t.Fatal(err)
			}

			var names []string
			start := map[string]int{}
			for _, s := range res.Sections {
				names = append(names, s.Name)
				start[s.Name] = s.Start
			}
			wantNames := []string{"prompt_files"}
			if len(c.skills) > 0 {
				wantNames = append(wantNames, "skills")
			}
			if len(c.peers) > 0 {
				wantNames = append(wantNames, "peers")
			}
			wantNames = append(wantNames, "approval", "delegation_failure")
			if strings.Join(names, " ") != strings.Join(wantNames, " ") {
				t.Fatalf("sections %q, want %q", names, wantNames)
			}

			seedPart, rest := res.Text[:start["approval"]], res.Text[start["approval"]:]
			if seedPart != want {
				t.Fatalf("the prompt file, skills and peers differ from the seed's build_system_prompt at byte %d:\ngot  %q\nwant %q",
					phrase.CommonPrefixLen(seedPart, want), seedPart, want)
			}
			if res.Text != want+rest {
				t.Fatal("unreachable: the prompt is not the seed's output followed by the variant's sections")
			}
			// The variant's own sections are not the seed's: their headings are
			// the manifest's (checks.headings), their words the golden files'.
			headings := fixture.Variant(t, "workspace").Manifest().Checks.Headings
			if len(headings) != 2 || !strings.HasPrefix(rest, "\n\n"+headings[0]+"\n") || !strings.Contains(rest, "\n\n"+headings[1]+"\n") || !strings.HasSuffix(rest, "\n") {
				t.Errorf("after the seed's part comes %.120q..., want the approval and delegation failure sections, headed %q", rest, headings)
			}
			if tail == "" {
				tail = rest
			} else if rest != tail {
				t.Errorf("the sections after the seed's part depend on the skills or peers:\n%s", rest)
			}
		})
	}
}
