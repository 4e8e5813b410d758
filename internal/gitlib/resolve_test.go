package gitlib

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
)

// TestResolveHijack: a tag pushed beside a branch of the same name, and a
// tag named as a commit's hash prefix, do not take the place of what the
// name meant: the short name is refused, naming both candidates and what
// to write; the full names and the full hash resolve as written.
func TestResolveHijack(t *testing.T) {
	t.Parallel()
	r := history(t)
	main, first := r.RevParse("HEAD"), r.RevParse("v1")
	r.Git("branch", "staging", first)
	r.Git("tag", "staging", main) // pushed by anyone who may push tags
	r.Git("tag", first[:12], main)
	repo := open(t, r.Dir)
	ctx := context.Background()

	for _, c := range []struct {
		ref   string
		names []string
	}{
		{"staging", []string{"refs/heads/staging", "refs/tags/staging"}},
		{"staging~1", []string{"refs/heads/staging~1", "refs/tags/staging~1"}},
		{first[:12], []string{first, "refs/tags/" + first[:12]}},
	} {
		_, err := repo.Resolve(ctx, c.ref)
		e := engine.AsError(err)
		if e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, "ambiguous") {
			t.Errorf("%s: %v, want refused as ambiguous", c.ref, err)
			continue
		}
		for _, n := range c.names {
			if !strings.Contains(e.Error(), n) {
				t.Errorf("%s: %v does not name %s", c.ref, err, n)
			}
		}
		if !strings.Contains(strings.Join(e.Hints, "\n"), "write the one you mean in full") {
			t.Errorf("%s: hints %q do not say what to write", c.ref, e.Hints)
		}
	}
	for ref, want := range map[string]string{
		"refs/heads/staging":       first,
		"refs/tags/staging":        main,
		"refs/tags/" + first[:12]:  main,
		first:                      first,
		main:                       main,
		"HEAD":                     main,
		"HEAD~1":                   first,
		"refs/heads/staging~0":     first,
		"v1":                       first,
		main[:7]:                   main,
		main[:20]:                  main,
		strings.ToUpper(main[:10]): main,
	} {
		if got, err := repo.Resolve(ctx, ref); err != nil || got != want {
			t.Errorf("Resolve(%s) = %s, %v; want %s", ref, got, err, want)
		}
	}
}

// TestResolveBranchOnly: what users commonly write keeps working where it
// means one thing: a branch that is only a branch, a remote's branch, a
// tag, HEAD and its ancestors.
func TestResolveBranchOnly(t *testing.T) {
	t.Parallel()
	r := history(t)
	head := r.RevParse("HEAD")
	r.Git("branch", "feature/x", "v1")
	r.Git("update-ref", "refs/remotes/origin/main", head)
	repo := open(t, r.Dir)
	for ref, want := range map[string]string{
		"feature/x":   r.RevParse("v1"),
		"origin/main": head,
		"HEAD^":       r.RevParse("v1"),
		"v1~0":        r.RevParse("v1"),
	} {
		if got, err := repo.Resolve(context.Background(), ref); err != nil || got != want {
			t.Errorf("Resolve(%s) = %s, %v; want %s", ref, got, err, want)
		}
	}
}

// TestResolvePeelsTags: an annotated tag, and a tag of such a tag, by name
// or by the tag object's hash, resolve to the commit they end at; a tag of
// a tree is refused as naming no commit.
func TestResolvePeelsTags(t *testing.T) {
	t.Parallel()
	r := history(t)
	head := r.RevParse("HEAD")
	r.Git("tag", "-a", "-m", "release", "annotated", "v1")
	r.Git("tag", "-a", "-m", "again", "retagged", "refs/tags/annotated")
	r.Git("tag", "-a", "-m", "a tree", "treetag", "HEAD^{tree}")
	tagObject := r.RevParse("refs/tags/retagged")
	repo := open(t, r.Dir)
	ctx := context.Background()
	for ref, want := range map[string]string{
		"annotated":          r.RevParse("v1"),
		"refs/tags/retagged": r.RevParse("v1"),
		"retagged~0":         r.RevParse("v1"),
		tagObject:            r.RevParse("v1"),
		"HEAD":               head,
	} {
		if got, err := repo.Resolve(ctx, ref); err != nil || got != want {
			t.Errorf("Resolve(%s) = %s, %v; want %s", ref, got, err, want)
		}
	}
	_, err := repo.Resolve(ctx, "treetag")
	if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, "names no commit") {
		t.Errorf("a tag of a tree: %v, want refused as naming no commit", err)
	}
}

// TestResolveRefusesOtherSyntax: git's other ways to name a commit, which
// read the reflog, search messages or name what is not a commit, are
// refused saying what is read; a name that resolves to no commit, or
// whose ancestor is not there, is unknown.
func TestResolveRefusesOtherSyntax(t *testing.T) {
	t.Parallel()
	r := history(t)
	repo := open(t, r.Dir)
	for _, ref := range []string{"main@{1}", "@{-1}", ":/Say", "v1^{tree}", "HEAD:templates", "v1..HEAD", "v*", "@"} {
		_, err := repo.Resolve(context.Background(), ref)
		if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, "not a name this program resolves") || len(e.Hints) == 0 {
			t.Errorf("%s: %v", ref, err)
		}
	}
	for _, ref := range []string{"v2", "HEAD~5", "refs/heads/nope", "0000000"} {
		_, err := repo.Resolve(context.Background(), ref)
		if e := engine.AsError(err); e == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, "unknown ref") {
			t.Errorf("%s: %v", ref, err)
		}
	}
}

// TestResolveAmbiguousPrefix: a hash prefix that two commits share is
// refused, naming both.
func TestResolveAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	r := testrepo.New(t)
	// 2000 commits, made at once, share a 4-digit prefix somewhere: the
	// dates and names are fixed, so the hashes are the same each run.
	var stream strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&stream, "commit refs/heads/many\ncommitter T <t@example.com> 0 +0000\ndata %d\n%d\n", len(fmt.Sprint(i)), i)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader(stream.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	out, err := exec.Command("git", "-C", r.Dir, "rev-list", "many").Output()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	var a, b string
	for _, h := range strings.Fields(string(out)) {
		if o, ok := seen[h[:4]]; ok {
			a, b = o, h
			break
		}
		seen[h[:4]] = h
	}
	if a == "" {
		t.Fatal("no two commits share a 4-digit prefix")
	}
	repo := open(t, r.Dir)
	_, err = repo.Resolve(context.Background(), a[:4])
	if e := engine.AsError(err); e == nil || !strings.Contains(e.Reason, "ambiguous") || !strings.Contains(e.Reason, a) || !strings.Contains(e.Reason, b) {
		t.Errorf("%s: %v, want ambiguous naming %s and %s", a[:4], err, a, b)
	}
	if got, err := repo.Resolve(context.Background(), a); err != nil || got != a {
		t.Errorf("Resolve(%s) = %s, %v", a, got, err)
	}
}
