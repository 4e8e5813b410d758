package testrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FilteredNoteLibrary is a repository of one commit, NoteLibrary with a
// .gitattributes that gives every file filter=evil diff=evil: once
// Programs names the programs, plain git runs them on every file.
func FilteredNoteLibrary(t testing.TB) *Repo {
	r := New(t)
	files := NoteLibrary()
	files[".gitattributes"] = "* filter=evil diff=evil\n"
	r.CommitFiles("Add the library", files)
	return r
}

// Programs makes the repository's configuration name a program for each
// way plain git offers to run one: a clean, smudge and process filter and
// a textconv for the files .gitattributes gives filter=evil diff=evil, an
// fsmonitor, an alias of rev-parse, and the hooks named. Each program
// leaves a mark; Ran lists the marks left.
func (r *Repo) Programs(hooks ...string) *Programs {
	r.t.Helper()
	p := &Programs{r: r, marks: r.t.TempDir()}
	touch := func(name string) string { return "touch " + filepath.Join(p.marks, name) + " #" }
	for key, name := range map[string]string{"filter.evil.clean": "clean", "filter.evil.smudge": "smudge",
		"filter.evil.process": "process", "diff.evil.textconv": "textconv", "core.fsmonitor": "fsmonitor",
		"alias.rev-parse": "alias"} {
		r.Git("config", key, touch(name))
	}
	for _, hook := range hooks {
		os.WriteFile(filepath.Join(r.Dir, ".git", "hooks", hook), []byte("#!/bin/sh\n"+touch("hook")+"\n"), 0o755)
	}
	return p
}

// Programs are the programs a repository's configuration names.
type Programs struct {
	r     *Repo
	marks string
}

// Ran is the marks the programs have left.
func (p *Programs) Ran() []os.DirEntry {
	ran, _ := os.ReadDir(p.marks)
	return ran
}

// CheckNoneRan fails the test if any program has run while the test was
// doing what doing says, then checks that plain git status, run in the
// repository, does run one: that the repository tests something. Call it
// after the changes that give git status work (an edited file to clean).
func (p *Programs) CheckNoneRan(doing string) {
	p.r.t.Helper()
	if ran := p.Ran(); len(ran) > 0 {
		p.r.t.Fatalf("%s ran a program the repository's configuration names: %v", doing, ran)
	}
	plain := exec.Command("git", "status", "--short")
	plain.Dir = p.r.Dir
	plain.Run() // the fsmonitor's answer is not what git expects: git fails, after running it
	if len(p.Ran()) == 0 {
		p.r.t.Error("plain git status ran nothing: the test repository does not test anything")
	}
}
