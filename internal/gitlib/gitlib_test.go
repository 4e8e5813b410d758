package gitlib

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// history is testrepo.NoteHistory, its first commit tagged v1 as well as
// prod: the note variant says Hello at v1 and Hello again at HEAD, with a
// line more.
func history(t *testing.T) *testrepo.Repo {
	r := testrepo.NoteHistory(t)
	r.Git("tag", "v1", "prod")
	return r
}

func open(t *testing.T, dir string) *Repo {
	t.Helper()
	repo, err := Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func renderAt(t *testing.T, repo *Repo, ref, variant, example string) string {
	t.Helper()
	ctx := context.Background()
	tree, err := repo.Tree(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := tree.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := lib.Variant(variant)
	if err != nil {
		t.Fatal(tree.AtRef(err))
	}
	in, err := v.Example(example)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Render(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text
}

// TestLoadAtRefs: a tag and HEAD render what each commit holds, and what
// the work tree holds, uncommitted, counts for neither.
func TestLoadAtRefs(t *testing.T) {
	t.Parallel()
	r := history(t)
	r.Write("templates/note/head.md.tmpl", "# Note\n\nNot committed.\n")
	repo := open(t, r.Dir)
	if got, want := renderAt(t, repo, "v1", "note", "basic"), "# Note\n\nHello\n\n- one\n- two\n"; got != want {
		t.Errorf("at v1: %q, want %q", got, want)
	}
	if got, want := renderAt(t, repo, "HEAD", "note", "basic"), "# Note\n\nHello\n\nSay more.\n\n- one\n- two\n"; got != want {
		t.Errorf("at HEAD: %q, want %q", got, want)
	}
	if got := renderAt(t, repo, "HEAD~1", "memo", "team"); got != "# Memo\n\nTo the team.\n" {
		t.Errorf("memo at HEAD~1: %q", got)
	}
}

// TestLibraryInAFolder: a working copy below the repository's top reads
// the library from its folder of the tree, and errors name the files by
// their paths in the tree.
func TestLibraryInAFolder(t *testing.T) {
	t.Parallel()
	r := testrepo.New(t)
	files := map[string]string{"README.md": "a project\n"}
	for name, text := range testrepo.NoteLibrary() {
		files["prompts/"+name] = text
	}
	r.CommitFiles("Add the library in a folder", files)
	r.CommitFiles("Break memo", map[string]string{"prompts/templates/memo/prompt.yaml": "sections: [nothing]\n"})
	repo := open(t, filepath.Join(r.Dir, "prompts"))
	if got := renderAt(t, repo, "HEAD~1", "memo", "team"); got != "# Memo\n\nTo the team.\n" {
		t.Errorf("memo: %q", got)
	}
	tree, err := repo.Tree(context.Background(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := tree.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = lib.Variant("memo")
	e := engine.AsError(tree.AtRef(err))
	if e == nil || !strings.HasPrefix(e.Position, "prompts/templates/memo/") || !strings.HasPrefix(e.Reason, "at HEAD (commit ") {
		t.Errorf("broken memo: %#v", e)
	}
}

// TestRefErrors: a ref that names no commit, and a commit without a
// library, are refused naming the ref; a broken variant's error names the
// ref, the commit and the file at fault.
func TestRefErrors(t *testing.T) {
	t.Parallel()
	r := testrepo.BrokenNoteHistory(t, "templates/note/prompt.yaml", "description: A note\nsections: [head, items, missing]\n")
	repo := open(t, r.Dir)
	ctx := context.Background()
	for _, c := range []struct{ ref, want string }{
		{"v9", `unknown ref "v9"`},
		{"--output=x", `unknown ref "--output=x"`},
		{"start", "start (commit "},
	} {
		_, err := repo.Tree(ctx, c.ref)
		if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, c.want) || len(e.Hints) == 0 {
			t.Errorf("%s: %v", c.ref, err)
		}
	}
	tree, err := repo.Tree(ctx, "broken")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := tree.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Variant("memo"); err != nil {
		t.Errorf("memo does not load beside a broken note: %v", err)
	}
	_, err = lib.Variant("note")
	e := engine.AsError(tree.AtRef(err))
	if e == nil || e.Kind != engine.KindTemplate || !strings.HasPrefix(e.Position, "templates/note/prompt.yaml") ||
		!strings.HasPrefix(e.Reason, "at broken (commit "+tree.Commit[:12]+"): ") ||
		!strings.Contains(strings.Join(e.Hints, "\n"), "git show "+tree.Commit[:12]+":templates/note/prompt.yaml") {
		t.Errorf("broken note: %#v", e)
	}
}

// TestRepositoryProgramsDoNotRun: a repository whose configuration names
// a filter for every file, an fsmonitor and a hook is read without
// running any of them; plain git runs them, so the test tests something.
func TestRepositoryProgramsDoNotRun(t *testing.T) {
	t.Parallel()
	r := testrepo.FilteredNoteLibrary(t)
	programs := r.Programs("post-checkout")
	r.Write("templates/note/head.md.tmpl", "changed\n") // what a clean filter would read

	if got := renderAt(t, open(t, r.Dir), "HEAD", "note", "bare"); got != "# Note\n\nBare\n" {
		t.Errorf("note: %q", got)
	}
	programs.CheckNoneRan("reading the library")
}

// TestKeys: a variant whose files are equal at two commits has one key
// there, and a Cache loads a library once for two refs of equal files.
func TestKeys(t *testing.T) {
	t.Parallel()
	r := history(t)
	r.Git("tag", "v2")
	repo := open(t, r.Dir)
	ctx := context.Background()
	trees := map[string]*Tree{}
	for _, ref := range []string{"v1", "v2", "HEAD"} {
		tree, err := repo.Tree(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		trees[ref] = tree
	}
	if trees["v1"].VariantKey("memo") != trees["v2"].VariantKey("memo") || trees["v1"].VariantKey("note") == trees["v2"].VariantKey("note") {
		t.Error("variant keys do not follow the variants' files")
	}
	if trees["v1"].Key() == trees["v2"].Key() || trees["v2"].Key() != trees["HEAD"].Key() {
		t.Error("library keys do not follow the library's files")
	}
	cache := NewCache(engine.WithLimits(engine.DefaultLimits()))
	a, err := cache.Library(ctx, trees["v2"])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := cache.Library(ctx, trees["HEAD"])
	c, _ := cache.Library(ctx, trees["v1"])
	if a != b || a == c {
		t.Errorf("cache: v2 and HEAD share a library: %t; v1 has its own: %t", a == b, a != c)
	}
	if n := cache.Loads(); n != 2 {
		t.Errorf("the cache loaded %d libraries for two distinct ones", n)
	}
	cache.Forget(func(key string) bool { return key == trees["v1"].Key() })
	if d, _ := cache.Library(ctx, trees["HEAD"]); d == a {
		t.Error("a forgotten library was served again")
	}
}

// TestWorkingCopyKeys: the files of a work tree checked out at HEAD give
// each variant the key HEAD's tree gives it, in a SHA-1 and in a SHA-256
// repository alike; an edit changes its variant's key, and only that
// one's; a link where a variant reads leaves it without a key.
func TestWorkingCopyKeys(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			r := testrepo.New(t)
			if err := os.RemoveAll(filepath.Join(r.Dir, ".git")); err != nil {
				t.Fatal(err)
			}
			r.Git("init", "-q", "--object-format="+format, "--template=")
			files := testrepo.NoteLibrary()
			files["templates/note/examples/a-b.yaml"] = "title: Dash\n"
			files["templates/note/examples/a/deep.yaml"] = "title: Deep\n"
			r.CommitFiles("Add the library", files)
			tree, err := open(t, r.Dir).Tree(context.Background(), "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			worktree := map[string][]byte{}
			for p, text := range files {
				worktree[p] = []byte(text)
			}
			for _, v := range []string{"note", "memo"} {
				if got, want := tree.VariantKeyOf(worktree, nil, v), tree.VariantKey(v); got != want || got == "" {
					t.Errorf("%s: the work tree's key %q, HEAD's %q", v, got, want)
				}
			}
			worktree["templates/note/head.md.tmpl"] = []byte("# Note, edited\n")
			if tree.VariantKeyOf(worktree, nil, "note") == tree.VariantKey("note") {
				t.Error("an edit of note leaves its key as HEAD's")
			}
			if tree.VariantKeyOf(worktree, nil, "memo") != tree.VariantKey("memo") {
				t.Error("an edit of note changes memo's key")
			}
			worktree["schemas/extra.schema.json"] = []byte("{}")
			if tree.VariantKeyOf(worktree, nil, "memo") == tree.VariantKey("memo") {
				t.Error("a new schema leaves memo's key as HEAD's: a schema may be referred to")
			}
			delete(worktree, "schemas/extra.schema.json")
			if key := tree.VariantKeyOf(worktree, []string{"templates/memo/link.md.tmpl"}, "memo"); key != "" {
				t.Errorf("a link in memo's folder: key %q, want none", key)
			}
		})
	}
}

// TestTreeWithTooManyFiles: a commit whose templates/ holds more files
// than any library (here maxLibraryFiles+1 empty ones, made with git
// mktree, no file written) is refused while it is listed, before a file
// is read; the listing stops there.
func TestTreeWithTooManyFiles(t *testing.T) {
	t.Parallel()
	r := history(t)
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir, cmd.Stdin = r.Dir, strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	empty := git("", "hash-object", "-w", "--stdin")
	var many strings.Builder
	fmt.Fprintf(&many, "100644 blob %s\tprompt.yaml\n", empty)
	for i := range maxLibraryFiles {
		fmt.Fprintf(&many, "100644 blob %s\tf%06d.md.tmpl\n", empty, i)
	}
	variant := git(many.String(), "mktree")
	templates := git("040000 tree "+variant+"\tv\n", "mktree")
	root := git("040000 tree "+templates+"\ttemplates\n", "mktree")
	commit := git("", "commit-tree", root, "-m", "Many files")
	_, err := open(t, r.Dir).Tree(context.Background(), commit)
	if e := engine.AsError(err); err == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, fmt.Sprintf("more than %d files", maxLibraryFiles)) {
		t.Errorf("a tree of %d files: %v", maxLibraryFiles+1, err)
	}
}

// TestResolveInABrokenRepository: git failing to read the repository
// (here its objects gone) is not reported as an unknown ref, which would
// send the author looking for a typo, but as what git says.
func TestResolveInABrokenRepository(t *testing.T) {
	t.Parallel()
	r := history(t)
	repo := open(t, r.Dir)
	if err := os.Rename(filepath.Join(r.Dir, ".git", "objects"), filepath.Join(r.Dir, ".git", "objects.gone")); err != nil {
		t.Fatal(err)
	}
	_, err := repo.Resolve(context.Background(), "v1")
	if e := engine.AsError(err); err == nil || e.Kind != engine.KindInternal || strings.Contains(e.Reason, "unknown ref") || !strings.Contains(e.Reason, "not a git repository") {
		t.Errorf("resolve in a repository without objects: %v", err)
	}
}

// TestTreeWithALargeFile: a commit whose template passes the file limit,
// or whose files pass the library limit, is refused naming the file and
// the ref, by the sizes git lists, before any blob is read.
func TestTreeWithALargeFile(t *testing.T) {
	t.Parallel()
	r := history(t)
	r.CommitFiles("A large template", map[string]string{"templates/note/big.md.tmpl": strings.Repeat("{{ .title }}\n", 10000)})
	tree, err := open(t, r.Dir).Tree(context.Background(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []engine.Limits{{FileBytes: 64 << 10}, {LibraryBytes: 64 << 10}} {
		_, err = tree.Load(context.Background(), engine.WithLimits(l))
		e := engine.AsError(err)
		if err == nil || e.Kind != engine.KindTemplate || e.Position != "templates/note/big.md.tmpl" || !strings.HasPrefix(e.Reason, "at HEAD (commit ") {
			t.Errorf("%+v: %v", l, err)
		}
	}
	if _, err := tree.Load(context.Background()); err != nil {
		t.Errorf("within the default limits: %v", err)
	}
}

// TestNoGit: with no git on PATH, opening a repository says git is
// missing, not that the folder is not in a repository.
func TestNoGit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	_, err := Open(context.Background(), "", dir)
	if e := engine.AsError(err); e == nil || !strings.Contains(e.Reason, "git is not installed") || strings.Contains(e.Reason, "not in a git repository") {
		t.Errorf("no git on PATH: %v", err)
	}
}
