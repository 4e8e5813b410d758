package gitlib

import (
	"testing"
	"testing/fstest"
)

// TestFS: an FS behaves as io/fs says a file system does, so that the
// engine reads a commit's library as it reads a folder.
func TestFS(t *testing.T) {
	t.Parallel()
	fsys := &FS{files: map[string][]byte{
		"schemas/note.schema.json":           []byte("{}"),
		"templates/note/prompt.yaml":         []byte("sections: [head]\n"),
		"templates/note/head.md.tmpl":        []byte("# Note\n"),
		"templates/note/examples/basic.yaml": []byte("title: Hello\n"),
		"templates/note/examples/empty.yaml": {},
	}}
	if err := fstest.TestFS(fsys, "schemas/note.schema.json", "templates/note/prompt.yaml",
		"templates/note/head.md.tmpl", "templates/note/examples/basic.yaml", "templates/note/examples/empty.yaml"); err != nil {
		t.Fatal(err)
	}
}
