package testrepo

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// CommitFiles writes files, given as slash path and text (parent folders
// made; an empty text deletes the file), adds every change and commits
// them with message, at a fixed time: the same files and history give the
// same commit hashes on every run, so that output naming a commit can be
// held to a golden file.
func (r *Repo) CommitFiles(message string, files map[string]string) {
	r.t.Helper()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(r.Dir, filepath.FromSlash(name))
		if files[name] == "" {
			if err := os.Remove(path); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			r.t.Fatal(err)
		}
		r.Write(name, files[name])
	}
	r.Git("add", "-A")
	cmd := exec.Command("git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false",
		"commit", "-q", "--allow-empty", "-m", message)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git commit: %v\n%s", err, out)
	}
}

// NoteLibrary is a small template library, two variants (note and memo),
// for tests that version one: what a test changes in it is all that
// differs between its commits, whatever the shipped library holds.
func NoteLibrary() map[string]string {
	return map[string]string{
		"schemas/note.schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "additionalProperties": false, "required": ["title"],
  "properties": {
    "title": {"type": "string", "description": "The note's title."},
    "items": {"type": "array", "default": [], "items": {"type": "string"}, "description": "The note's items."}
  }
}
`,
		"templates/note/prompt.yaml": `description: A note
sections: [head, items]
checks:
  headings: ["# Note"]
`,
		"templates/note/head.md.tmpl":        "# Note\n\n{{ .title }}\n",
		"templates/note/items.md.tmpl":       "{{ range .items }}- {{ . }}\n{{ end }}",
		"templates/note/examples/basic.yaml": "title: Hello\nitems: [one, two]\n",
		"templates/note/examples/bare.yaml":  "title: Bare\n",
		"schemas/memo.schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "additionalProperties": false, "required": ["to"],
  "properties": {"to": {"type": "string", "description": "Who the memo is for."}}
}
`,
		"templates/memo/prompt.yaml":        "description: A memo\nsections: [memo]\n",
		"templates/memo/memo.md.tmpl":       "# Memo\n\nTo {{ .to }}.\n",
		"templates/memo/examples/team.yaml": "to: the team\n",
	}
}
