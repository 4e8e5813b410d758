package variants_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
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
// answer: a list of {"agent_card": {...}}, whose values are as YAML decodes
// them.
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

// seedSkill is a loaded skill as the seed sees it: its name, and the body
// of its SKILL.md, without the frontmatter (seedInstructions).
type seedSkill struct{ name, instructions string }

// seedInstructions is "the body (non-frontmatter) content" of a SKILL.md,
// as the seed's loader reads it: a frontmatter is a first line "---", YAML
// lines, and a line "---" (with LF or CRLF line ends), and one empty line
// after it is part of it. Without a frontmatter, the file is the body.
func seedInstructions(skillMD string) string {
	for _, eol := range []string{"\n", "\r\n"} {
		rest, ok := strings.CutPrefix(skillMD, "---"+eol)
		if !ok {
			continue
		}
		for at := 0; at <= len(rest); {
			line, next, found := strings.Cut(rest[at:], eol)
			if line == "---" && found {
				body := next
				return strings.TrimPrefix(body, eol)
			}
			if !found {
				break
			}
			at += len(line) + len(eol)
		}
	}
	return skillMD
}

// TestWorkspaceMatchesSeed holds the examples templates/workspace/prompt.yaml
// pins to seed 000 (seed.pinned): for each, the golden file of what the
// seed's sections write (testdata/golden/workspace/<example>.seed.md) must
// be what build_system_prompt returns for the example's system-prompt.md,
// skills and peers. The golden test holds that file to the rendered
// prompt, and render test --update never rewrites it, so a change of the
// library that alters the seed's part is refused by render test itself.
// An example not pinned is left to the golden files.
func TestWorkspaceMatchesSeed(t *testing.T) {
	t.Parallel()
	eachPinned(t, "workspace", "000_e73ebed129b1a5c4.txt", 5, func(t *testing.T, v *engine.Variant, ex string, in engine.Input) {
		if len(v.Manifest().Seed.Sections) == 0 {
			t.Fatal("templates/workspace/prompt.yaml names no seed.sections: build_system_prompt writes only the prompt files, skills and peers")
		}
		var input struct {
			PromptFiles []struct{ File, Content string } `yaml:"prompt_files"`
			Skills      []struct {
				Name    string
				SkillMD string `yaml:"skill_md"`
			}
			Peers []map[string]any
		}
		if err := yaml.Unmarshal(in.Data, &input); err != nil {
			t.Fatal(err)
		}
		if len(input.PromptFiles) != 1 || input.PromptFiles[0].File != "system-prompt.md" {
			t.Fatalf("%s: a pinned example has one prompt file, system-prompt.md, the file the seed reads; it has %+v", in.Name, input.PromptFiles)
		}
		var skills []seedSkill
		for _, s := range input.Skills {
			skills = append(skills, seedSkill{s.Name, seedInstructions(s.SkillMD)})
		}
		var peers []map[string]any
		for _, card := range input.Peers {
			peers = append(peers, map[string]any{"agent_card": card})
		}
		want := seedBuildSystemPrompt(input.PromptFiles[0].Content, skills, peers)
		file := filepath.Join("..", "..", "testdata", "golden", "workspace", manifest.SeedGolden(ex))
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (render test --update writes it)", err)
		}
		if string(got) != want {
			t.Errorf("%s differs from the seed's build_system_prompt at byte %d:\ngot  %q\nwant %q",
				file, phrase.CommonPrefixLen(string(got), want), got, want)
		}
	})
}
