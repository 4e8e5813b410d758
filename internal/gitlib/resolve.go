package gitlib

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitsafe"
	"github.com/promptsmith/promptsmith/internal/phrase"
)

// A ref is resolved to exactly one commit, or refused. git rev-parse
// takes a short name in an order of its own (a tag before a branch of the
// same name) and a hash prefix as a ref of that name when there is one, so
// that whoever may push a tag could choose what a label serves. Resolve
// reads no name that way:
//
//   - a full ref name (refs/heads/main, refs/tags/v1) and a full commit
//     hash name what they say;
//   - HEAD, a short name (main, v1, origin/main) and a hash prefix of 4
//     digits or more are taken when they can mean one thing only: a
//     branch and a tag of that name, a prefix of two commits, or a prefix
//     that is also a ref's name are refused, naming every candidate;
//   - any of these may end in ~N and ^N (main~2, v1^), counted from the
//     commit the name resolves to.
//
// Any other syntax of git's (main@{1}, :/message, v1^{tree}) is refused.

// suffixRe splits a ref into its name and its ancestry suffix (~2^1).
var suffixRe = regexp.MustCompile(`^(.*?)((?:[~^][0-9]*)*)$`)

// hexRe is what a hash, or a prefix of one, is written with.
var hexRe = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

// candidate is one thing a ref may name: a ref by its full name, or an
// object by its hash.
type candidate struct {
	name   string // refs/tags/v1, HEAD, or a full hash
	commit string // the commit it resolves to, "" until peeled finds it (or that it names none)
	kind   string // of a hash: what git stores under it, commit or tag
}

// Resolve returns the commit a ref names, exactly one or an error that
// says why not: see the rules above.
func (r *Repo) Resolve(ctx context.Context, ref string) (string, error) {
	m := suffixRe.FindStringSubmatch(ref)
	name, suffix := m[1], m[2]
	if !validName(name) {
		if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
			return "", unknownRef(r.dir, ref)
		}
		return "", &engine.Error{Kind: engine.KindUsage, Path: r.dir,
			Reason: fmt.Sprintf("ref %s is not a name this program resolves: it reads a branch, a tag, a full ref name (refs/...), HEAD or a commit hash, each optionally followed by ~N or ^N", phrase.Quote(ref)),
			Hints:  []string{"give the commit's full hash instead: git rev-parse prints it"}}
	}
	c, err := r.resolveName(ctx, ref, name)
	if err != nil {
		return "", err
	}
	if suffix == "" {
		return c.commit, nil
	}
	commit, err := r.commitOf(ctx, c.commit+suffix)
	if err != nil {
		return "", err
	}
	if commit == "" {
		return "", &engine.Error{Kind: engine.KindUsage, Path: r.dir,
			Reason: fmt.Sprintf("unknown ref %s: %s resolves to commit %s, which has no %s", phrase.Quote(ref), name, short(c.commit), suffix),
			Hints:  []string{"git log --oneline " + c.commit[:min(12, len(c.commit))] + " lists the commits before it"}}
	}
	return commit, nil
}

// resolveName resolves name, a ref without its ~N suffix, to the one thing
// it names.
func (r *Repo) resolveName(ctx context.Context, ref, name string) (candidate, error) {
	var cands []candidate
	if strings.HasPrefix(name, "refs/") {
		// A full name is what it says: git rev-parse tries it first.
		found, err := r.refs(ctx, name)
		if err != nil {
			return candidate{}, err
		}
		cands = found
	} else {
		if hex := strings.ToLower(name); hexRe.MatchString(hex) {
			objects, err := r.objects(ctx, hex)
			if err != nil {
				return candidate{}, err
			}
			if len(objects) == 1 && objects[0].name == hex {
				return r.peeled(ctx, ref, objects[0]) // a full hash, as given
			}
			cands = append(cands, objects...)
		}
		var patterns []string
		for _, format := range []string{"refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"} {
			patterns = append(patterns, fmt.Sprintf(format, name))
		}
		found, err := r.refs(ctx, patterns...)
		if err != nil {
			return candidate{}, err
		}
		cands = append(cands, found...)
		if name == "HEAD" {
			commit, err := r.commitOf(ctx, "HEAD")
			if err != nil {
				return candidate{}, err
			}
			if commit != "" {
				cands = append([]candidate{{name: "HEAD", commit: commit}}, cands...)
			}
		}
	}
	switch len(cands) {
	case 0:
		return candidate{}, unknownRef(r.dir, ref)
	case 1:
		return r.peeled(ctx, ref, cands[0])
	}
	return candidate{}, r.ambiguous(ctx, ref, name, cands)
}

// peeled is c with the commit it names, or the error of a ref that names
// no commit (a tag of a tree, a blob's hash). The listing that found c
// knows the commit of a ref to a commit or to a tag of one, and of a
// commit's hash: git is asked only for the others.
func (r *Repo) peeled(ctx context.Context, ref string, c candidate) (candidate, error) {
	if c.commit != "" {
		return c, nil
	}
	commit, err := r.commitOf(ctx, c.name)
	if err != nil {
		return candidate{}, err
	}
	if commit == "" {
		return candidate{}, &engine.Error{Kind: engine.KindUsage, Path: r.dir,
			Reason: fmt.Sprintf("unknown ref %s: %s names no commit of the repository at %s", phrase.Quote(ref), c.name, r.dir),
			Hints:  []string{"give a branch, a tag or a commit: git branch -a and git tag list them"}}
	}
	c.commit = commit
	return c, nil
}

// ambiguous is the error of a name that could mean each of cands.
func (r *Repo) ambiguous(ctx context.Context, ref, name string, cands []candidate) error {
	var said, full []string
	for _, c := range cands {
		commit := c.commit
		if commit == "" {
			commit, _ = r.commitOf(ctx, c.name)
		}
		what := c.name
		switch {
		case !strings.HasPrefix(c.name, "refs/") && c.name != "HEAD":
			what = "the commit " + c.name
			if c.kind == "tag" {
				what = "the annotated tag " + c.name
			}
		case commit != "":
			what += " (commit " + short(commit) + ")"
		}
		said = append(said, what)
		full = append(full, c.name)
	}
	suffix := strings.TrimPrefix(ref, name)
	return &engine.Error{Kind: engine.KindUsage, Path: r.dir,
		Reason: fmt.Sprintf("ref %s is ambiguous: it could mean %s", phrase.Quote(ref), strings.Join(said, ", or ")),
		Hints: []string{
			"write the one you mean in full: " + strings.Join(full, suffix+", or ") + suffix,
			"a short name is taken only where it names one branch, tag or commit, so that a tag pushed later cannot take a branch's place"}}
}

// validName reports whether name is a name Resolve reads: what git
// check-ref-format allows of a ref's name, without git's other syntax.
func validName(name string) bool {
	if name == "" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") || name == "@" ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") || strings.Contains(name, "/.") ||
		strings.HasPrefix(name, ".") {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	return true
}

// refFormat is what refs asks git of each ref: its name, what it points
// at, and, for an annotated tag, what the tag points at.
const refFormat = "--format=%(refname) %(objecttype) %(objectname) %(*objecttype) %(*objectname)"

// refs lists the refs whose full names are among names, with the commit
// of each that points at a commit or at a tag of one.
func (r *Repo) refs(ctx context.Context, names ...string) ([]candidate, error) {
	out, err := r.git.Output(ctx, append([]string{"for-each-ref", refFormat}, names...)...)
	if err != nil {
		return nil, r.gitFailed(names[0], err)
	}
	var found []candidate
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		c := candidate{name: f[0]}
		switch {
		case f[1] == "commit":
			c.commit = f[2]
		case f[1] == "tag" && len(f) == 5 && f[3] == "commit":
			c.commit = f[4]
		}
		// for-each-ref also lists what is below a name
		// (refs/heads/main/x for refs/heads/main).
		if slices.Contains(names, c.name) {
			found = append(found, c)
		}
	}
	return found, nil
}

// objects lists the commits and tags whose hashes start with prefix.
func (r *Repo) objects(ctx context.Context, prefix string) ([]candidate, error) {
	out, err := r.git.Output(ctx, "rev-parse", "--disambiguate="+prefix)
	if err != nil {
		return nil, r.gitFailed(prefix, err)
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 {
		return nil, nil
	}
	cmd := r.git.Command(ctx, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	types, err := cmd.Output()
	if err != nil {
		return nil, r.gitFailed(prefix, err)
	}
	var found []candidate
	sc := bufio.NewScanner(strings.NewReader(string(types)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[1] == "commit":
			found = append(found, candidate{name: f[0], kind: f[1], commit: f[0]})
		case len(f) == 2 && f[1] == "tag":
			found = append(found, candidate{name: f[0], kind: f[1]})
		}
	}
	return found, nil
}

// commitOf is the commit rev names, "" when it names none.
func (r *Repo) commitOf(ctx context.Context, rev string) (string, error) {
	out, err := r.git.Output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		// --verify --quiet says "no such commit" with status 1 and
		// nothing on stderr, or, for a tree or a blob, a complaint
		// about its type; a repository git cannot read (corrupt,
		// locked, owned by another user) fails otherwise, saying why.
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && (len(strings.TrimSpace(string(exit.Stderr))) == 0 || r.isObject(ctx, rev)) {
			return "", nil
		}
		return "", r.gitFailed(rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// isObject reports whether rev names an object git can read. It tells a
// name of a tree or a blob, which git --verify --quiet still complains
// about (in the user's language), from a repository git cannot read.
func (r *Repo) isObject(ctx context.Context, rev string) bool {
	_, err := r.git.Output(ctx, "cat-file", "-t", "--end-of-options", rev)
	return err == nil
}

// gitFailed is the error of git failing to read the repository.
func (r *Repo) gitFailed(ref string, err error) error {
	return &engine.Error{Kind: engine.KindInternal, Path: r.dir,
		Reason: fmt.Sprintf("git cannot resolve %q in the repository at %s: %v%s", ref, r.dir, err, gitsafe.Stderr(err)), Err: err}
}
