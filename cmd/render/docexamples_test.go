package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docsWithExamples are the documents whose shell examples run here,
// relative to the repository's root.
func docsWithExamples(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md", "../../templates/README.md"}, docs...)
}

// notRun is the visible note that keeps a shell example from running
// here, with the reason: "*Not run by the tests: it needs a PostgreSQL
// server.*" on the line before the block.
var notRun = regexp.MustCompile(`^\*Not run by the tests: (.+)\*$`)

// shellBlock is a ```sh block of a document.
type shellBlock struct {
	doc    string
	line   int // the line of its fence, from 1
	text   string
	reason string // why it does not run; "" for a block that runs
}

// shellBlocks reads the ```sh blocks of a document.
func shellBlocks(t *testing.T, doc string) []shellBlock {
	t.Helper()
	src, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var blocks []shellBlock
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sh" {
			continue
		}
		b := shellBlock{doc: doc, line: i + 1}
		for j := i - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if m := notRun.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil {
				b.reason = m[1]
			}
			break
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
			body = append(body, lines[i])
		}
		b.text = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks
}

// TestShellExamplesInTheDocs runs every shell example of README.md,
// templates/README.md and docs/, each in a fresh copy of the library (a
// git repository whose branch main holds it) with the render built from
// this tree on PATH, and fails when one exits with an error. An example
// that cannot run here says why, visibly, on the line before its block.
func TestShellExamplesInTheDocs(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := filepath.Dir(renderBinary(t))
	ran := 0
	for _, doc := range docsWithExamples(t) {
		for _, b := range shellBlocks(t, doc) {
			name := strings.TrimPrefix(doc, "../../") + ":" + itoa(b.line)
			if b.reason != "" {
				t.Logf("%s: not run: %s", name, b.reason)
				continue
			}
			ran++
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := scratchLibrary(t)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.text)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("the example at %s fails: %v\n%s\n%s", name, err, b.text, out)
				}
			})
		}
	}
	if ran == 0 {
		t.Fatal("no shell example ran")
	}
}

// firstExample names the first example of a variant of the library.
func firstExample(t *testing.T, variant string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../../templates", variant, "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example of %s: %v", variant, err)
	}
	return filepath.Base(files[0])
}

// scratchLibrary is a copy of the repository's library (templates,
// schemas, golden files) in a git repository whose branch main holds it.
func scratchLibrary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"templates", "schemas", "testdata"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("../..", sub))); err != nil {
			t.Fatal(err)
		}
	}
	// The files the examples name: an input of space (run.yaml), of
	// delegation (req.json) and of swarm (base.yaml), inputs of one's own
	// (captured/), and a work tree of an agent's (~/worktrees/agent-1).
	for name, example := range map[string]string{
		"run.yaml":  "templates/space/examples/crowded.yaml",
		"base.yaml": "templates/swarm/examples/" + firstExample(t, "swarm"),
	} {
		data, err := os.ReadFile(filepath.Join(dir, example))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"captured", "worktrees/agent-1"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "templates", "schemas", "testdata"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "library"},
		{"tag", "v1.4"},
		{"tag", "v1.5"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func itoa(n int) string { return strconv.Itoa(n) }
