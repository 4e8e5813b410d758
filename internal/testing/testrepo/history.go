package testrepo

import "testing"

// The note variant's prompt for the input NoteInput at each commit of
// NoteHistory.
const (
	NoteInput = `{"title": "Hello", "items": ["one", "two"]}`
	HelloV1   = "# Note\n\nHello\n\n- one\n- two\n"
	HelloMore = "# Note\n\nHello\n\nSay more.\n\n- one\n- two\n"
)

// NoteHistory is a repository of NoteLibrary whose branch main has two
// commits, the first tagged prod: the note variant renders HelloV1 at
// prod and HelloMore at main, for tests of labels that serve both.
func NoteHistory(t testing.TB) *Repo {
	t.Helper()
	r := New(t)
	r.CommitFiles("Add the library", NoteLibrary())
	r.Git("branch", "-M", "main")
	r.Git("tag", "prod")
	r.CommitFiles("Say more", map[string]string{"templates/note/head.md.tmpl": "# Note\n\n{{ .title }}\n\nSay more.\n"})
	return r
}

// BrokenNoteHistory is a repository of three commits, for tests of what a
// ref without a library or with a broken one says: one that holds no
// library (tagged start), NoteLibrary, and one that writes text to file,
// a file of the note variant (tagged broken).
func BrokenNoteHistory(t testing.TB, file, text string) *Repo {
	t.Helper()
	r := New(t)
	r.CommitFiles("Start", map[string]string{"README.md": "prompts soon\n"})
	r.Git("tag", "start")
	r.CommitFiles("Add the library", NoteLibrary())
	r.CommitFiles("Break note", map[string]string{file: text})
	r.Git("tag", "broken")
	return r
}
