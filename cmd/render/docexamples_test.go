package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
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
// this tree on PATH, and fails when one exits with an error, naming the
// document, the line and the output. testdata/docexamples.bash stands in
// for what a user's machine has and a test's has not: render serve runs
// in the background on a free port, the paths /srv and /run/secrets are
// folders of the copy. An example that names PROMPTSMITH_AUDIT gets a
// PostgreSQL schema of its own there (testpostgres). The lines that run
// the test suite itself (selfReferential) are checked another way. An
// example that cannot run here says why, visibly, on the line before its
// block, and names the script of CI that runs it, which must run each of
// its commands (ranByCI).
func TestShellExamplesInTheDocs(t *testing.T) {
	// The commands the examples run beside render (.ci/run installs them).
	for _, tool := range []string{"bash", "git", "curl", "openssl", "mkfifo"} {
		if _, err := exec.LookPath(tool); err != nil {
			fixture.Missing(t, "the docs' shell examples run "+tool+", which is not installed")
		}
	}
	bin := filepath.Dir(renderBinary(t))
	prelude, err := filepath.Abs("testdata/docexamples.bash")
	if err != nil {
		t.Fatal(err)
	}
	// A block that calls a server (curl to the loopback) and starts none
	// runs after the doc's previous block, which starts it, in the same
	// shell and the same subtest.
	type run struct{ before, b shellBlock }
	var runs []run
	for _, doc := range docsWithExamples(t) {
		for _, b := range shellBlocks(t, doc) {
			if b.reason != "" {
				t.Logf("%s: not run: %s", docName(b), b.reason)
				if err := ranByCI(b); err != nil {
					t.Errorf("%s is not run here (%s), and %v", docName(b), b.reason, err)
				}
				continue
			}
			n := len(runs)
			if strings.Contains(b.text, "http://127.0.0.1:") && !strings.Contains(b.text, "render serve") &&
				n > 0 && runs[n-1].b.doc == doc && runs[n-1].before.text == "" {
				runs[n-1] = run{before: runs[n-1].b, b: b}
				continue
			}
			runs = append(runs, run{b: b})
		}
	}
	if len(runs) == 0 {
		t.Fatal("no shell example ran")
	}
	library := scratchLibrary(t)
	for _, r := range runs {
		name := docName(r.b)
		if r.before.text != "" {
			name = docName(r.before) + "," + itoa(r.b.line)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(library)); err != nil {
				t.Fatal(err)
			}
			for _, m := range renderNew.FindAllStringSubmatch(r.before.text+r.b.text, -1) {
				withoutVariant(t, dir, m[1])
			}
			runShellBlock(t, dir, bin, prelude, r.before, r.b)
		})
	}
}

// renderNew finds the variants an example makes with render new.
var renderNew = regexp.MustCompile(`(?m)\brender new ([a-z][a-z0-9_-]*)`)

// withoutVariant removes the variant name from the library copy in dir,
// its files and golden files: an example that makes it with render new is
// written for a library without it, and an author who ran that example in
// the working copy has it there.
func withoutVariant(t *testing.T, dir, name string) {
	t.Helper()
	golden := filepath.Join(dir, "testdata", "golden")
	for _, p := range []string{filepath.Join(dir, "templates", name), filepath.Join(dir, "schemas", name+".schema.json"),
		filepath.Join(golden, name), filepath.Join(golden, "types", name+".ts"), filepath.Join(golden, "types", name+".py")} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

// docName is a block's document and line, from the repository's root.
func docName(b shellBlock) string {
	return strings.TrimPrefix(b.doc, "../../") + ":" + itoa(b.line)
}

// runShellBlock runs block b, after block before if it has one, with
// bash -e -o pipefail in dir, a scratch copy of the library.
func runShellBlock(t *testing.T, dir, bin, prelude string, before, b shellBlock) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROMPTSMITH_") || strings.HasPrefix(kv, testpostgres.Env+"=") {
			env = append(env, kv)
		}
	}
	token, err := os.ReadFile(filepath.Join(dir, "run/secrets/promptsmith"))
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir,
		"BASH_ENV="+prelude, "TMPDIR="+t.TempDir(), "TOKEN="+string(token))
	if strings.Contains(before.text+b.text, "PROMPTSMITH_AUDIT") {
		env = append(env, "PROMPTSMITH_AUDIT="+testpostgres.Schema(t, "render_docs_"))
	}
	script := runnable(t, before) + runnable(t, b)
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	// The output goes to a file, not a pipe, so that a server left
	// running cannot hold the example open; its process group is killed.
	ownGroup(cmd)
	err = cmd.Run()
	killGroup(cmd)
	if err == nil {
		return
	}
	output, _ := os.ReadFile(out.Name())
	where := docName(b)
	k := strings.Count(before.text, "\n")
	if m := regexp.MustCompile(`(?m)^docs: line (\d+): `).FindAllSubmatch(output, -1); len(m) > 0 {
		n, _ := strconv.Atoi(string(m[len(m)-1][1]))
		if n <= k {
			where = docName(shellBlock{doc: before.doc, line: before.line + n})
		} else {
			where = docName(shellBlock{doc: b.doc, line: b.line + n - k})
		}
	}
	t.Errorf("the example at %s fails at %s: %v\n%s\n%s", docName(b), where, err, script, output)
}

// runnable is the text of block b as it runs: each line that runs the
// test suite or CI (selfReferential) stands as ":" (the line numbers stay
// those of the document) once it is checked another way.
func runnable(t *testing.T, b shellBlock) string {
	t.Helper()
	lines := strings.Split(b.text, "\n")
	for i, line := range lines {
		command := strings.TrimSpace(line)
		if j := strings.Index(command, " #"); j >= 0 {
			command = strings.TrimSpace(command[:j])
		}
		if check, ok := selfReferential[command]; ok {
			if err := check(); err != nil {
				t.Errorf("%s:%d: %s is not run here (it would run this test again), and: %v", strings.TrimPrefix(b.doc, "../../"), b.line+i+1, command, err)
			}
			lines[i] = ":"
		}
	}
	return strings.Join(lines, "\n")
}

// selfReferential are the commands of the examples that run the module's
// tests or CI, which would run TestShellExamplesInTheDocs again: instead of
// running them, each checks that CI (.ci/run) runs what it says.
var selfReferential = map[string]func() error{
	// CI runs the test suite with the command the docs give.
	"go test ./...": func() error { return ciRuns("go test ./...") },
	// CI runs every benchmark of the module once, internal/variants' among
	// them, which has some.
	"go test -bench . -run '^$' ./internal/variants": func() error {
		if err := ciRuns("go test -run '^$' -bench . -benchtime 1x ./..."); err != nil {
			return err
		}
		files, _ := filepath.Glob("../../internal/variants/*_test.go")
		for _, f := range files {
			if src, err := os.ReadFile(f); err == nil && strings.Contains(string(src), "\nfunc Benchmark") {
				return nil
			}
		}
		return errors.New("internal/variants has no benchmark")
	},
	// .ci/run is CI itself: bash reads it, and it runs what the README
	// says it runs (gofmt, go vet, go test -race).
	"bash .ci/run": func() error {
		if out, err := exec.Command("bash", "-n", "../../.ci/run").CombinedOutput(); err != nil {
			return fmt.Errorf("bash -n .ci/run: %v\n%s", err, out)
		}
		for _, command := range []string{"unformatted=$(gofmt -l", "go vet ./...", "go test -race"} {
			if err := ciRuns(command); err != nil {
				return err
			}
		}
		return nil
	},
}

// ciRuns reports whether .ci/run runs command, as a line of its own or
// the start of one.
func ciRuns(command string) error {
	src, err := os.ReadFile("../../.ci/run")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(src), "\n") {
		if line == command || strings.HasPrefix(line, command+" ") {
			return nil
		}
	}
	return fmt.Errorf(".ci/run does not run %s", command)
}

// ciScript is the script of CI that an example not run here names, in
// its note: "CI runs them (`.ci/clients`)".
var ciScript = regexp.MustCompile("`(\\.ci/[a-z-]+)`")

// ranByCI checks that the script of CI that block b's note names runs
// every command of the block: each is part of a line of the script, with
// the script's variables of one word (name=value) put in.
func ranByCI(b shellBlock) error {
	m := ciScript.FindStringSubmatch(b.reason)
	if m == nil {
		return errors.New("its note names no script of CI (`.ci/...`) that runs it")
	}
	src, err := os.ReadFile(filepath.Join("../..", m[1]))
	if err != nil {
		return err
	}
	script := string(src)
	for _, m := range regexp.MustCompile(`(?m)^(\w+)=(\S+)$`).FindAllStringSubmatch(script, -1) {
		script = strings.ReplaceAll(script, `"$`+m[1]+`"`, m[2])
	}
	for i, line := range strings.Split(b.text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, command := range strings.Split(line, " && ") {
			if !strings.Contains(script, command) {
				return fmt.Errorf("%s does not run %s (%s:%d)", m[1], command, strings.TrimPrefix(b.doc, "../../"), b.line+i+1)
			}
		}
	}
	return nil
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
// schemas, golden files) in a git repository whose branch main holds it,
// with the files the examples name; each example runs in a copy of it.
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
	// req.json: an input of delegation, as JSON (revoked-deploy's).
	req, err := os.ReadFile(filepath.Join(dir, "templates/delegation/examples/revoked-deploy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(req, &v); err != nil {
		t.Fatal(err)
	}
	if req, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	// labels.yaml: the labels of render serve --labels-file; /srv and
	// /run/secrets of a server's machine (testdata/docexamples.bash):
	// its bearer token and a bare clone of the library.
	for name, data := range map[string][]byte{
		"req.json":                req,
		"labels.yaml":             []byte("labels: {production: refs/tags/prod, staging: refs/heads/main}\ndefault: production\n"),
		"run/secrets/promptsmith": []byte("d0c5-example-token-5e3a9b1f"),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"captured", "worktrees/agent-1"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", "--template="},
		{"add", "templates", "schemas", "testdata"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "library"},
		{"tag", "v1.4"},
		{"tag", "v1.5"},
		{"tag", "prod"},
		// In one pack, without hooks' samples: each example copies it.
		{"repack", "-a", "-d", "-q"},
		{"prune-packed"},
		{"clone", "-q", "--bare", "--template=", ".", "srv/prompts.git"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func itoa(n int) string { return strconv.Itoa(n) }
