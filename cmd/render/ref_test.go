package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// versioned is a repository of testrepo's note library with a history:
// v1 as NoteLibrary has it; v2 (HEAD) says more in note's head, drops
// memo and adds todo; and a working copy that changes note's items,
// uncommitted.
func versioned(t *testing.T) *testrepo.Repo {
	t.Helper()
	r := testrepo.New(t)
	r.CommitFiles("Add the library", testrepo.NoteLibrary())
	r.Git("tag", "v1")
	r.CommitFiles("Say more, memo becomes todo", map[string]string{
		"templates/note/head.md.tmpl":          "# Note\n\n{{ .title }}\n\nRead every item.\n",
		"templates/memo/prompt.yaml":           "",
		"templates/memo/memo.md.tmpl":          "",
		"templates/memo/examples/team.yaml":    "",
		"schemas/memo.schema.json":             "",
		"schemas/todo.schema.json":             `{"type": "object", "properties": {"task": {"type": "string", "description": "The task."}}}` + "\n",
		"templates/todo/prompt.yaml":           "description: A task\nsections: [todo]\n",
		"templates/todo/todo.md.tmpl":          "# Todo\n\n{{ .task }}\n",
		"templates/todo/examples/laundry.yaml": "task: laundry\n",
	})
	r.Git("tag", "v2")
	r.Write("templates/note/items.md.tmpl", "{{ range .items }}- [ ] {{ . }}\n{{ end }}")
	return r
}

// TestRenderAtRef: --ref renders the library a tag or HEAD holds, each
// its own text; without it render uses the working copy, edits and all.
func TestRenderAtRef(t *testing.T) {
	r := versioned(t)
	for _, c := range []struct {
		ref, want string
	}{
		{"v1", "# Note\n\nHello\n\n- one\n- two\n"},
		{"HEAD", "# Note\n\nHello\n\nRead every item.\n\n- one\n- two\n"},
		{"", "# Note\n\nHello\n\nRead every item.\n\n- [ ] one\n- [ ] two\n"},
	} {
		args := []string{"--templates", r.Dir, "note", "--example", "basic"}
		if c.ref != "" {
			args = append(args, "--ref", c.ref)
		}
		if got := runCLI(t, "", args...); got.code != 0 || got.stdout != c.want {
			t.Errorf("render --ref %q: exit %d\n%q\nwant %q\n%s", c.ref, got.code, got.stdout, c.want, got.stderr)
		}
	}
	// Found from the current directory, the working copy is where the
	// ref is read; the note says that the ref, not the copy, renders.
	t.Chdir(filepath.Join(r.Dir, "templates"))
	got := runSearching(t, "", "--ref", "v1", "note", "--example", "basic")
	if got.code != 0 || got.stdout != "# Note\n\nHello\n\n- one\n- two\n" ||
		got.stderr != "render: using v1 of the repository of the working copy at "+resolved(t, r.Dir)+"\n" {
		t.Errorf("render --ref v1 in the working copy: exit %d %q %q", got.code, got.stdout, got.stderr)
	}
	if got := runCLI(t, "", "--templates", r.Dir, "--ref", "v1", "memo", "--example", "team"); got.code != 0 || got.stdout != "# Memo\n\nTo the team.\n" {
		t.Errorf("memo at v1: exit %d %q %s", got.code, got.stdout, got.stderr)
	}
	if got := runCLI(t, "", "--templates", r.Dir, "--ref", "v2", "list"); got.code != 0 || !strings.Contains(got.stdout, "todo") || strings.Contains(got.stdout, "memo") {
		t.Errorf("list at v2: exit %d %q %s", got.code, got.stdout, got.stderr)
	}
}

// TestRenderAtRefErrors: an unknown ref, a ref without a library, a
// broken library at a ref, a variant the ref does not have, and --ref
// without a working copy each fail with exit 2 and say what to do.
func TestRenderAtRefErrors(t *testing.T) {
	t.Parallel()
	r := testrepo.BrokenNoteHistory(t, "templates/note/head.md.tmpl", "# Note\n\n{{ .title }\n")
	r.CommitFiles("Mend note", map[string]string{"templates/note/head.md.tmpl": "# Note\n\n{{ .title }}\n"})
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown ref", []string{"--ref", "v9", "note", "--example", "basic"},
			[]string{`unknown ref "v9"`, "hint: give a branch, a tag or a commit"}},
		{"no library", []string{"--ref", "start", "note", "--example", "basic"},
			[]string{"start (commit ", "holds no library at templates/", "hint: pick a ref from after the library was added"}},
		{"broken library", []string{"--ref", "broken", "note", "--example", "basic"},
			[]string{"templates/note/head.md.tmpl:3:", "at broken (commit ", "git show "}},
		{"no library, listed", []string{"--ref", "start~0", "list"}, []string{"holds no library"}},
		{"a variant the ref lacks", []string{"--ref", "HEAD", "todo", "--example", "x"}, []string{`at HEAD (commit `, `unknown variant "todo"`}},
		{"render test", []string{"--ref", "HEAD", "test"}, []string{"--ref does not apply here", "render diff REF"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runCLI(t, "", append([]string{"--templates", r.Dir}, c.args...)...)
			for _, w := range c.want {
				if got.code != 2 || !strings.Contains(got.stderr, w) {
					t.Errorf("exit %d, stderr lacks %q:\n%s", got.code, w, got.stderr)
				}
			}
		})
	}
	if got := runCLI(t, "", "--ref", "HEAD", "note", "--example", "basic"); got.code != 2 || !strings.Contains(got.stderr, "there is none here") {
		t.Errorf("--ref without a working copy: exit %d\n%s", got.code, got.stderr)
	}
	if got := runCLI(t, "", "--templates", r.Dir, "--ref", "broken", "memo", "--example", "team"); got.code != 0 {
		t.Errorf("memo, beside a broken note: exit %d\n%s", got.code, got.stderr)
	}
}

// TestRenderAtRefRunsNothing: a repository whose configuration names a
// program for every way git offers to run one (testrepo's Programs: the
// filters, a textconv, an fsmonitor, an alias) renders at a ref without
// running any of them.
func TestRenderAtRefRunsNothing(t *testing.T) {
	t.Parallel()
	r := testrepo.FilteredNoteLibrary(t)
	programs := r.Programs()
	r.Git("config", "filter.evil.required", "true")
	r.Write("templates/note/head.md.tmpl", "# Note\n\nedited\n") // a changed file, which git status would clean
	for _, args := range [][]string{{"--ref", "HEAD", "note", "--example", "bare"}, {"diff", "HEAD"}} {
		got := runCLI(t, "", append([]string{"--templates", r.Dir}, args...)...)
		if got.code != 0 {
			t.Errorf("render %v: exit %d\n%s", args, got.code, got.stderr)
		}
	}
	programs.CheckNoneRan("rendering at a ref")
}

// TestAmbiguousRef: --ref and render diff given a name that is both a
// branch and a tag, or a hash prefix that a tag is named, are refused
// with exit 2, naming both refs; the full names render.
func TestAmbiguousRef(t *testing.T) {
	t.Parallel()
	r := versioned(t)
	v1 := r.RevParse("v1")
	r.Git("branch", "release", "v1")
	r.Git("tag", "release", "v2")
	r.Git("tag", v1[:12], "v2")
	for _, args := range [][]string{
		{"note", "--example", "basic", "--ref", "release"},
		{"diff", "release"},
		{"diff", "v1", "release"},
		{"note", "--example", "basic", "--ref", v1[:12]},
	} {
		got := runCLI(t, "", append([]string{"--templates", r.Dir}, args...)...)
		if got.code != 2 || !strings.Contains(got.stderr, "is ambiguous") || !strings.Contains(got.stderr, "write the one you mean in full") {
			t.Errorf("render %v: exit %d\n%s", args, got.code, got.stderr)
		}
	}
	got := runCLI(t, "", "--templates", r.Dir, "note", "--example", "basic", "--ref", "refs/heads/release")
	if got.code != 0 || got.stdout != "# Note\n\nHello\n\n- one\n- two\n" {
		t.Errorf("render --ref refs/heads/release: exit %d %q\n%s", got.code, got.stdout, got.stderr)
	}
}
