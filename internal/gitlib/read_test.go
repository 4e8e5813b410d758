package gitlib

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// What git cat-file printed short of what was asked for is an error that
// keeps its cause, for errors.Is, and names the file it stopped at.
func TestReadBatchKeepsTheCause(t *testing.T) {
	t.Parallel()
	blobs := []blob{{path: "templates/a/prompt.yaml", id: "1111111111111111111111111111111111111111"}}
	for name, c := range map[string]struct {
		out   string
		cause error
	}{
		"no header":      {"", io.EOF},
		"cut inside":     {blobs[0].id + " blob 10\nabc", io.ErrUnexpectedEOF},
		"header cut off": {blobs[0].id + " blob", io.EOF},
	} {
		_, err := readBatch(bufio.NewReader(strings.NewReader(c.out)), blobs)
		if !errors.Is(err, c.cause) {
			t.Errorf("%s: err = %v, want one wrapping %v", name, err, c.cause)
		}
		if err != nil && !strings.Contains(err.Error(), blobs[0].path) {
			t.Errorf("%s: %v does not name the file", name, err)
		}
	}
	_, err := readBatch(bufio.NewReader(strings.NewReader(blobs[0].id+" blob 3\nabcX")), blobs)
	if err == nil || !strings.Contains(err.Error(), "no newline after "+blobs[0].path) {
		t.Errorf("a blob without its newline: err = %v", err)
	}
}
