// Package gather fills input fields from the host a prompt is built on: the
// output of a command, an environment variable, a file of the project, the
// clock. It is a step of its own, before rendering, because a render reads
// nothing but its input: that is what makes the same input give the same
// prompt. The probes are declared in a variant's manifest (gather:), so this
// package knows no variant's fields. The engine never imports it.
package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/regular"
)

// Options says where and when probes run.
type Options struct {
	// Dir is the directory commands run in and files are read from; the
	// current directory when empty.
	Dir string
	// Now is the clock of the date and now probes; time.Now when nil.
	Now func() time.Time
}

// Gathered is an input field a probe filled in.
type Gathered struct {
	Field string          `json:"field"`
	Value any             `json:"value"`
	doc   *input.Document // the key order of a JSON value's objects
}

// Warning says why a probe left its field out.
type Warning struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (w Warning) String() string { return w.Field + ": " + w.Reason }

const (
	// maxBytes refuses larger outputs and files, never truncating them.
	maxBytes = 1 << 20
	// waitDelay is how long a killed command's pipes may stay open, held
	// by a process that left its group, before they are closed anyway.
	waitDelay = time.Second
)

// Run runs the variant's probes, concurrently, and returns the fields they
// filled in and the warnings of those that could not, both in manifest
// order. A probe that fails only leaves its field out.
func Run(ctx context.Context, v *engine.Variant, opts Options) ([]Gathered, []Warning) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	type outcome struct {
		found Gathered
		ok    bool
		warn  string
	}
	probes := v.Manifest().Gather
	outcomes := make([]outcome, len(probes))
	var wg sync.WaitGroup
	for i := range probes {
		wg.Go(func() {
			o := &outcomes[i]
			r := runner{probe: probes[i], dir: dir, now: now}
			o.found.Value, o.found.doc, o.ok, o.warn = r.run(ctx)
			o.found.Field = probes[i].Field
		})
	}
	wg.Wait()
	var found []Gathered
	var warns []Warning
	for i, o := range outcomes {
		if o.ok {
			found = append(found, o.found)
		} else if o.warn != "" {
			warns = append(warns, Warning{Field: probes[i].Field, Reason: o.warn})
		}
	}
	return found, warns
}

// runner runs one probe.
type runner struct {
	probe manifest.Probe
	dir   string
	now   func() time.Time
}

// run returns the probe's value, or ok false with a warning, or with none
// when leaving the field out is normal (an unset variable, a missing file).
func (r runner) run(ctx context.Context) (value any, doc *input.Document, ok bool, warn string) {
	p := r.probe
	switch {
	case p.Value != "":
		switch p.Value {
		case "os":
			return runtime.GOOS, nil, true, ""
		case "cwd":
			return r.dir, nil, true, ""
		case "date":
			return r.now().Format(time.DateOnly), nil, true, ""
		case "now":
			return r.now().Truncate(time.Second).Format(time.RFC3339), nil, true, ""
		}
		return nil, nil, false, fmt.Sprintf("unknown value %q", p.Value)
	case p.Env != "":
		s := os.Getenv(p.Env)
		return s, nil, s != "", ""
	case p.File != "":
		return r.readFile(ctx)
	}
	return r.runCommand(ctx)
}

// readFile reads a file probe's file within the probe's timeout and the
// caller's context: a file on a stuck network mount, or anything else that
// blocks, is given up on, never waited for.
func (r runner) readFile(ctx context.Context) (any, *input.Document, bool, string) {
	p := r.probe
	ctx, cancel := context.WithTimeout(ctx, p.Wait())
	defer cancel()
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1) // the reader never blocks on it, even when given up on
	go func() {
		data, err := readProjectFile(r.dir, p.File)
		done <- read{data, err}
	}()
	select {
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, nil, false, fmt.Sprintf("%s: not read within %s", p.File, p.Wait())
		}
		return nil, nil, false, fmt.Sprintf("%s: cancelled", p.File)
	case rd := <-done:
		if errors.Is(rd.err, fs.ErrNotExist) {
			return nil, nil, false, ""
		}
		if rd.err != nil {
			return nil, nil, false, fmt.Sprintf("%s: %v", p.File, rd.err)
		}
		return r.decode(p.File, rd.data)
	}
}

// readProjectFile reads name inside dir through an os.Root, so that neither
// ".." nor a symbolic link can lead it out of the directory being gathered;
// a regular file only (regular.OpenFrom).
func readProjectFile(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, st, err := regular.OpenFrom(root, name, notRegular)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > maxBytes {
		return nil, fmt.Errorf("%s is larger than the %s limit", phrase.Size(int(st.Size())), phrase.Size(maxBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err == nil && len(data) > maxBytes {
		err = fmt.Errorf("the file grew past the %s limit while it was read", phrase.Size(maxBytes))
	}
	return data, err
}

// notRegular is the error of a file of mode m.
func notRegular(m fs.FileMode) error {
	return fmt.Errorf("not a regular file (%s)", regular.Kind(m))
}

func (r runner) runCommand(ctx context.Context) (any, *input.Document, bool, string) {
	p := r.probe
	name := commandLine(p.Command)
	ctx, cancel := context.WithTimeout(ctx, p.Wait())
	defer cancel()
	if errors.Is(exec.Command(p.Command[0]).Err, exec.ErrNotFound) {
		if p.Optional {
			return nil, nil, false, ""
		}
		return nil, nil, false, fmt.Sprintf("%s: %s is not installed (not found on PATH)", name, p.Command[0])
	}
	var cmd *exec.Cmd
	if isGit(p.Command[0]) {
		g, err := r.gitFor(ctx, p.Command[0])
		if err != nil {
			return nil, nil, false, r.failure(ctx, name, err, "")
		}
		cmd = g.command(ctx, p.Command[1:]...)
	} else {
		cmd = newProcess(ctx, r.dir, os.Environ(), p.Command[0], p.Command[1:]...)
	}
	stdout := &cappedBuffer{max: maxBytes}
	stderr := &cappedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, false, r.failure(ctx, name, err, stderr.String())
	}
	if stdout.over {
		return nil, nil, false, fmt.Sprintf("%s: printed more than the %s limit", name, phrase.Size(maxBytes))
	}
	return r.decode(name, bytes.TrimRight(stdout.Bytes(), "\r\n"))
}

// failure is the warning of a command that failed: timed out, cancelled, or
// err and the last line of what it printed on stderr.
func (r runner) failure(ctx context.Context, name string, err error, stderr string) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("%s: timed out after %s; killed", name, r.probe.Wait())
	case ctx.Err() != nil:
		return fmt.Sprintf("%s: cancelled", name)
	}
	msg := fmt.Sprintf("%s: %v", name, err)
	if line := lastLine(stderr); line != "" {
		msg += ": " + line
	}
	return msg
}

// newProcess makes a command that runs in dir, in a process group of its
// own, killed with it when ctx ends.
func newProcess(ctx context.Context, dir string, env []string, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	return cmd
}

// decode turns what a command printed or a file holds into the field's
// value: text, or with parse: json the decoded JSON, its objects' key order
// kept, and only the keys of Keep. Empty output and JSON null leave the
// field out, without a warning: the source had nothing to say.
func (r runner) decode(source string, data []byte) (any, *input.Document, bool, string) {
	p := r.probe
	if p.Parse != "json" {
		if !utf8.Valid(data) {
			data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		}
		return string(data), nil, true, ""
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, false, ""
	}
	v, doc, err := input.DecodeJSON(input.Input{Name: source, Data: data}, nil)
	if errors.Is(err, input.ErrTrailingData) {
		return nil, nil, false, fmt.Sprintf("%s: the output holds more than one JSON value", source)
	}
	if err != nil {
		return nil, nil, false, fmt.Sprintf("%s: the output is not JSON: %s", source, engine.AsError(err).Reason)
	}
	if v == nil {
		return nil, nil, false, ""
	}
	keepKeys(doc, v, p.Keep)
	return v, doc, true, ""
}

// keepKeys drops the keys not in keep from an object, or from each object of
// an array, keeping the order of the others.
func keepKeys(doc *input.Document, v any, keep []string) {
	if len(keep) == 0 {
		return
	}
	switch c := v.(type) {
	case map[string]any:
		for _, k := range slices.Clone(doc.Keys(c)) {
			if !slices.Contains(keep, k) {
				doc.Delete(c, k)
			}
		}
	case []any:
		for _, e := range c {
			keepKeys(doc, e, keep)
		}
	}
}

func commandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'") {
			a = fmt.Sprintf("%q", a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}

// cappedBuffer keeps at most max bytes and notes that there was more; the
// writer never fails, so the command is not killed by a broken pipe.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.over || b.Len()+len(p) > b.max {
		b.over = true
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
