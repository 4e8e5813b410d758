package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/spf13/cobra"
)

var variantName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

func (a *app) newCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "new <variant>",
		Short: "Write a working skeleton of a new variant into the working copy",
		Long: `new writes a variant that works at once into the working copy (--templates DIR,
else the current directory): a manifest, an input schema with a description on
every field, two sections, one example and its golden file. render lint and
render test pass on it as it is; then make it yours, one file at a time.`,
		Example: `  render new reviewer
  render new reviewer --templates ~/prompts`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.newVariant(args[0])
		},
	}
}

func (a *app) newVariant(name string) error {
	if !variantName.MatchString(name) {
		return usageError("%q is not a variant name: use lower-case letters, digits, - and _, starting with a letter", name)
	}
	root := a.templates
	if root == "" {
		root = "."
	}
	title := strings.ToUpper(name[:1]) + strings.ReplaceAll(name[1:], "-", " ")
	files := map[string]string{
		"templates/" + name + "/prompt.yaml": `# yaml-language-server: $schema=../manifest.schema.json
# The ` + name + ` variant. templates/README.md documents every field of this file.
description: The prompt of a ` + name + ` agent
sections: [intro, task]
join: "\n"
checks:
  headings: ["# ` + title + `", "## Task"]
`,
		"templates/" + name + "/intro.md.tmpl": `# ` + title + `

You are {{ .agent.name }}{{ with .agent.role }}, {{ . }}{{ end }}.
`,
		"templates/" + name + "/task.md.tmpl": `## Task

{{ .task.summary }}
{{ with .task.constraints }}
Constraints:
{{ range . }}- {{ . }}
{{ end }}{{ end -}}
`,
		"templates/" + name + "/examples/basic.yaml": `# The smallest input that renders: an agent and its task.
agent: {name: Ada, role: a careful reviewer}
task:
  summary: Review the open pull requests and report what blocks each one.
  constraints: [Do not merge anything., Report within the hour.]
`,
		"schemas/" + name + ".schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["agent", "task"],
  "properties": {
    "agent": {
      "type": "object", "additionalProperties": false, "required": ["name"],
      "description": "The agent the prompt is for.",
      "properties": {
        "name": {"type": "string", "minLength": 1, "description": "The agent's name, shown in the first line."},
        "role": {"type": "string", "default": "", "description": "What the agent is, after its name; left out when empty."}
      }
    },
    "task": {
      "type": "object", "additionalProperties": false, "required": ["summary"],
      "description": "What the agent is asked to do.",
      "properties": {
        "summary": {"type": "string", "minLength": 1, "description": "The task in a sentence or two, shown under Task."},
        "constraints": {"type": "array", "maxItems": 100, "default": [], "items": {"type": "string"}, "description": "Limits the agent must respect, one line each; left out when empty."}
      }
    }
  }
}
`,
	}
	var written []string
	undo := func() {
		for _, f := range written {
			os.Remove(f)
		}
		os.Remove(filepath.Join(root, "templates", name, "examples"))
		os.Remove(filepath.Join(root, "templates", name))
	}
	for rel := range files {
		if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
			return &engine.Error{Kind: engine.KindUsage, Path: filepath.Join(root, rel), Reason: "already exists: new writes a variant that is not there yet",
				Hints: []string{"choose another name, or edit the existing variant"}}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "templates", "manifest.schema.json")); err != nil {
		data, err := fs.ReadFile(promptsmith.FS(), "templates/manifest.schema.json")
		if err == nil {
			files["templates/manifest.schema.json"] = string(data)
		}
	}
	for rel, text := range files {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			undo()
			return fileError(path, "cannot create the folder", err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			undo()
			return fileError(path, "cannot write", err)
		}
		written = append(written, path)
	}
	// The golden file is the skeleton's own rendering: render test passes at once.
	lib, err := engine.LoadDir(root)
	if err == nil {
		var v *engine.Variant
		if v, err = lib.Variant(name); err == nil {
			in, _ := v.Example("basic")
			var res *engine.Result
			if res, err = v.Render(a.ctx, in); err == nil {
				golden := filepath.Join(root, "testdata", "golden", name, "basic.md")
				if err = os.MkdirAll(filepath.Dir(golden), 0o755); err == nil {
					err = os.WriteFile(golden, []byte(res.Text), 0o644)
					written = append(written, golden)
				}
			}
		}
	}
	if err != nil {
		undo()
		return err
	}
	dir := filepath.Join(root, "templates", name)
	a.say("wrote variant %s in %s:", name, dir)
	fmt.Fprintf(a.stdout, `  %[1]s/prompt.yaml             the manifest: sections, checks
  %[1]s/intro.md.tmpl, task.md.tmpl   one template per section
  %[1]s/examples/basic.yaml     an example input
  %[2]s   the input's schema
  %[3]s   the example's golden file

Next:
  1. describe the input in the schema; give every field a description
  2. write the sections; add an example for each branch of your templates
  3. render lint %[4]s --templates %[5]s
  4. render test %[4]s --templates %[5]s --update, read the golden files, commit
`, dir, filepath.Join(root, "schemas", name+".schema.json"), filepath.Join(root, "testdata", "golden", name, "basic.md"), name, root)
	return nil
}
