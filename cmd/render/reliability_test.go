package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The command line's half of the reliability suite: what -o leaves behind,
// what --audit records, and how much input is read. The engine's half is
// reliability_test.go in the root package.

// TestCheckFailureLeavesOutputAlone: render check -o writes its report
// only when every check passed; a failing report goes to stdout, exit 1,
// and the file is left as it was.
func TestCheckFailureLeavesOutputAlone(t *testing.T) {
	t.Parallel()
	dir := fixture.LibraryCopy(t)
	replaceInFile(t, filepath.Join(dir, "templates", "delegation", "tooling.md.tmpl"), fixture.Heading(t, "delegation", 4), "## Tools")
	out := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(out, []byte("the last good report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, validInput, "check", "delegation", "-i", "-", "--templates", dir, "-o", out)
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL headings") {
		t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "the last good report\n" {
		t.Errorf("a failed check overwrote -o with %q", b)
	}
	r = runCLI(t, validInput, "check", "delegation", "-i", "-", "-o", out)
	if b, _ := os.ReadFile(out); r.code != 0 || r.stdout != "" || !strings.Contains(string(b), "ok   headings") {
		t.Errorf("a passing check: exit %d, stdout %q, file %q", r.code, r.stdout, b)
	}
}

// TestAuditRecordsOnlyWrittenPrompts: a prompt whose -o could not be
// written is not in the audit store.
func TestAuditRecordsOnlyWrittenPrompts(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "audit.db")
	r := runCLI(t, "", "delegation", "--example", "minimal", "--format", "json")
	var res struct{ IDs map[string]string }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.IDs["delegation_id"] == "" {
		t.Fatalf("no delegation id: %v %s", err, r.stdout)
	}
	id := res.IDs["delegation_id"]
	r = runCLI(t, "", "delegation", "--example", "minimal", "--audit", db, "-o", filepath.Join(t.TempDir(), "missing", "p.md"))
	if r.code != 2 || !strings.Contains(r.stderr, "cannot write the output") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if r := runCLI(t, "", "audit", "show", id, "--audit", db); r.code == 0 {
		t.Fatalf("a prompt that was never written is in the audit store:\n%.200s", r.stdout)
	}
	out := filepath.Join(t.TempDir(), "p.md")
	if r := runCLI(t, "", "delegation", "--example", "minimal", "--audit", db, "-o", out); r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	written, _ := os.ReadFile(out)
	if r := runCLI(t, "", "audit", "show", id, "--audit", db); r.code != 0 || r.stdout != string(written) {
		t.Errorf("the written prompt is not the recorded one: exit %d, %s", r.code, r.stderr)
	}
}

// TestOutputThroughASymlink: -o link.md writes the link's target,
// atomically beside it, and the link stays a link; a link to a file that
// does not exist yet creates it.
func TestOutputThroughASymlink(t *testing.T) {
	t.Parallel()
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "prompt.md")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(filepath.Join("..", filepath.Base(elsewhere), "prompt.md"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	r := runCLI(t, validInput, "delegation", "-i", "-", "-o", link)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st, err)
	}
	if b, _ := os.ReadFile(target); !bytes.HasPrefix(b, []byte(fixture.Heading(t, "delegation", 0))) {
		t.Errorf("the target holds %.60q", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode became %v", st.Mode().Perm())
	}
	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink(filepath.Join(elsewhere, "new.md"), dangling); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, validInput, "delegation", "-i", "-", "-o", dangling); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(elsewhere, "new.md")); !bytes.HasPrefix(b, []byte(fixture.Heading(t, "delegation", 0))) {
		t.Errorf("the dangling link's target holds %.60q", b)
	}
	for _, d := range []string{dir, elsewhere} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("temporary file left: %s", e.Name())
			}
		}
	}
	// A directory is not replaced by a file.
	if r := runCLI(t, validInput, "delegation", "-i", "-", "-o", elsewhere); r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("-o a directory: exit %d, %s", r.code, r.stderr)
	}
}

// TestStaleTemporaryFilesAreRemoved: the temporary file a killed render
// left beside the output is removed by the next render to the same file;
// one whose process still runs (this test's parent's) is not.
func TestStaleTemporaryFilesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := ".out.md." + strconv.Itoa(gone.Process.Pid) + "-123.tmp"
	live := ".out.md." + strconv.Itoa(os.Getppid()) + "-456.tmp"
	other := ".notes.md." + strconv.Itoa(gone.Process.Pid) + "-789.tmp"
	for _, name := range []string{stale, live, other} {
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte("x"), 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := runCLI(t, validInput, "delegation", "-i", "-", "-o", filepath.Join(dir, "out.md")); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	left := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left[e.Name()] = true
	}
	if left[stale] || !left[live] || !left[other] || !left["out.md"] || len(left) != 3 {
		t.Errorf("left %v: want out.md, the live render's file and the other output's", left)
	}
}

// endless is a stream that never ends, and counts what was read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.read += len(p)
	return len(p), nil
}

// TestEndlessInputStops: an input stream is read up to the size limit and
// one byte more, then refused naming the limit.
func TestEndlessInputStops(t *testing.T) {
	t.Parallel()
	stdin := &endless{}
	var out, errb bytes.Buffer
	code := run([]string{"delegation", "-i", "-", "--max-input", "4096"}, stdin, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "over the limit of 4 KiB") || !strings.Contains(errb.String(), "--max-input") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	if stdin.read > 64<<10 {
		t.Errorf("read %d bytes of an endless stream with a limit of 4 KiB", stdin.read)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(big, bytes.Repeat([]byte(" "), 5000), 0o644)
	if r := runCLI(t, "", "delegation", "-i", big, "--max-input", "4096"); r.code != 2 || !strings.Contains(r.stderr, "the input is 5000 bytes, over the limit of 4 KiB") {
		t.Errorf("a file over the limit: exit %d, %s", r.code, r.stderr)
	}
}

// TestExtractReadsWhatARenderWrites: render extract reads a prompt as
// large as a render may write (--max-output), more than an input may be,
// and no more.
func TestExtractReadsWhatARenderWrites(t *testing.T) {
	t.Parallel()
	prompt := "# Delegation Overview\n<!-- PARENT PROMPT START -->\n" + strings.Repeat("x", 6000) + "\n<!-- PARENT PROMPT END -->\n"
	r := runCLI(t, prompt, "extract", "-i", "-", "--max-input", "4096", "--max-output", "8192")
	if r.code != 0 || len(r.stdout) != 6000 {
		t.Errorf("exit %d, %d bytes, %s", r.code, len(r.stdout), r.stderr)
	}
	r = runCLI(t, prompt, "extract", "-i", "-", "--max-input", "4096", "--max-output", "5000")
	if r.code != 2 || !strings.Contains(r.stderr, "over the limit of 5000 bytes") {
		t.Errorf("exit %d, %s", r.code, r.stderr)
	}
}
