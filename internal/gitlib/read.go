package gitlib

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
)

// maxLibraryBytes bounds the bytes read of one library: a tree with more
// is refused rather than held in memory.
const maxLibraryBytes = 256 << 20

// Read reads the tree's files with one git cat-file --batch, which prints
// each blob as it is stored: no filter or conversion of the repository's
// runs, nor does anything of the work tree count.
func (t *Tree) Read(ctx context.Context) (*FS, error) {
	files, err := t.repo.readBlobs(ctx, t.blobs)
	if err != nil {
		return nil, &engine.Error{Kind: engine.KindInternal, Path: t.repo.dir,
			Reason: fmt.Sprintf("cannot read the library of %s (%s): %v", t.Ref, short(t.Commit), err), Err: err}
	}
	return &FS{files: files}, nil
}

// readBlobs reads blobs by id, keyed by their paths.
func (r *Repo) readBlobs(ctx context.Context, blobs []blob) (map[string][]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failed read kills git
	cmd := r.git.Command(ctx, "cat-file", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		// git reads the ids as this writes them and prints each blob as
		// it goes; writing them from here keeps both pipes moving.
		w := bufio.NewWriter(stdin)
		for _, b := range blobs {
			w.WriteString(b.id + "\n")
		}
		w.Flush()
		stdin.Close()
	}()
	files, readErr := readBatch(bufio.NewReader(stdout), blobs)
	if readErr != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	if readErr != nil {
		return nil, readErr
	}
	if waitErr != nil {
		return nil, fmt.Errorf("git cat-file: %w: %s", waitErr, strings.TrimSpace(stderr.String()))
	}
	return files, nil
}

// readBatch reads what git cat-file --batch prints for blobs, in their
// order: "<id> blob <size>\n<bytes>\n" each.
func readBatch(out *bufio.Reader, blobs []blob) (map[string][]byte, error) {
	files := make(map[string][]byte, len(blobs))
	total := 0
	for _, b := range blobs {
		header, err := out.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file stopped before %s: %w", b.path, err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != b.id || fields[1] != "blob" {
			return nil, fmt.Errorf("git cat-file printed %q for %s (%s)", strings.TrimSpace(header), b.path, b.id)
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size < 0 || total+size > maxLibraryBytes {
			return nil, fmt.Errorf("%s: the library holds more than %d bytes", b.path, maxLibraryBytes)
		}
		total += size
		data := make([]byte, size+1)
		if _, err := io.ReadFull(out, data); err != nil {
			return nil, fmt.Errorf("git cat-file stopped inside %s: %w", b.path, err)
		}
		if data[size] != '\n' {
			return nil, fmt.Errorf("git cat-file printed no newline after %s (%s)", b.path, b.id)
		}
		files[b.path] = data[:size:size]
	}
	return files, nil
}
