package gitlib

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/gitsafe"
)

// Repo is the git repository that holds a library, and where in its
// tree the library is: a working copy may be a folder below the
// repository's top.
type Repo struct {
	git    gitsafe.Git
	dir    string // the folder the repository was opened at
	prefix string // the library's folder in the tree, "" or ending in "/"
}

// Open opens the repository of dir, a library working copy (its library
// is where dir is in the tree) or a bare repository (its library is at
// the top of the tree). git is the program to run, "git" from PATH when
// empty.
func Open(ctx context.Context, git, dir string) (*Repo, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // errors name the folder wherever they are read
	}
	g, err := gitsafe.New(git, dir).Guarded(ctx)
	if err != nil {
		return nil, notARepository(dir, err)
	}
	out, err := g.Output(ctx, "rev-parse", "--is-bare-repository", "--show-prefix")
	if err != nil {
		return nil, notARepository(dir, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	r := &Repo{git: g, dir: dir}
	if len(lines) == 2 && lines[0] == "false" {
		r.prefix = lines[1]
	}
	return r, nil
}

// notARepository is the error of a folder git finds no repository in, or
// cannot read.
func notARepository(dir string, err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return &engine.Error{Kind: engine.KindUsage, Path: dir, Reason: "git is not installed (not found on PATH)", Err: err,
			Hints: []string{"install git 2.31 or later to render from a commit"}}
	}
	return &engine.Error{Kind: engine.KindUsage, Path: dir,
		Reason: fmt.Sprintf("%s is not in a git repository%s", dir, gitsafe.Stderr(err)), Err: err,
		Hints: []string{"a library is rendered from a ref of the repository its working copy is in: run it there, or give --templates a working copy inside one"}}
}

// Dir is the folder the repository was opened at.
func (r *Repo) Dir() string { return r.dir }

// unknownRef is the error of a ref that names no commit.
func unknownRef(dir, ref string) error {
	return &engine.Error{Kind: engine.KindUsage, Path: dir,
		Reason: fmt.Sprintf("unknown ref %q: it names no commit of the repository at %s", ref, dir),
		Hints: []string{"give a branch, a tag or a commit: git branch -a and git tag list them",
			"a remote's branch is origin/main once fetched (git fetch)"}}
}
