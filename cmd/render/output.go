package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/regular"
)

// fail prints err to stderr, as JSON under --format json, and returns the
// exit status (exitCode).
func (a *app) fail(err error) int {
	e := engine.AsError(a.atRef(err)).Bounded()
	if a.format == "json" {
		b, _ := json.MarshalIndent(map[string]any{"error": e}, "", "  ")
		fmt.Fprintf(a.stderr, "%s\n", b)
	} else {
		a.say("%s", e.Error())
	}
	return exitCode(e.Kind)
}

// say prints one message of the command on stderr, behind its name.
func (a *app) say(format string, args ...any) {
	fmt.Fprintf(a.stderr, "render: "+format+"\n", args...)
}

// writeOutput writes to stdout, or to path atomically: the bytes go to a
// temporary file beside the file written, ".<name>.<pid>-<random>.tmp",
// that is renamed over it only once complete and synced, so that a failure
// never leaves a partial file or touches an existing one.
//
//   - Interrupted while it writes (SIGINT, SIGTERM), render removes the
//     temporary file, leaves path as it was, and dies of the signal.
//   - Killed (SIGKILL, a crash, a power cut), it cannot: the temporary file
//     stays, but the next render that writes the same path removes every
//     such file whose process is gone.
//   - A path that is a symbolic link is followed: its target is written,
//     atomically in the target's folder, and the link stays a link.
//   - A path that is not a regular file (a directory, a device, a pipe) is
//     refused: renaming over it would replace it.
func (a *app) writeOutput(path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := a.stdout.Write(data)
		return err
	}
	target, err := outputTarget(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)

	// Signals are caught from before the temporary file exists until it is
	// renamed or removed; before and after, they do what they always do.
	sigs := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			signal.Notify(sigs, sig)
		}
	}
	defer signal.Stop(sigs)

	tmp, err := os.CreateTemp(dir, fmt.Sprintf(".%s.%d-*.tmp", base, os.Getpid()))
	if err != nil {
		return fileError(path, "cannot write the output", err, "check that the folder exists and is writable")
	}
	w := &tempWrite{tmp: tmp, target: target}
	done := make(chan error, 1)
	go func() { done <- w.finish(data) }()
	select {
	case err := <-done:
		if err != nil {
			return fileError(path, "cannot write the output", err)
		}
		return nil
	case sig := <-sigs:
		if w.abandon() {
			a.say("interrupted (%v): %s was not written", sig, path)
		} else {
			a.say("interrupted (%v) after %s was written", sig, path)
		}
		// Die of the signal, as an interrupted program does, so that the
		// shell sees it. The signal comes back asynchronously; should it not
		// end the process (something else of the command catches it too),
		// fail.
		signal.Stop(sigs)
		if self, err := os.FindProcess(os.Getpid()); err == nil && self.Signal(sig) == nil {
			time.Sleep(time.Second)
		}
		return usageError("interrupted by %v", sig)
	}
}

// tempWrite is a write to a temporary file, then its rename over the
// target, that a signal may abandon at any moment before the rename.
type tempWrite struct {
	tmp    *os.File
	target string

	mu        sync.Mutex
	abandoned bool // the temporary file was removed: never rename it
	renamed   bool
}

func (w *tempWrite) finish(data []byte) error {
	_, err := w.tmp.Write(data)
	if err == nil {
		err = w.tmp.Sync()
	}
	if cerr := w.tmp.Close(); err == nil {
		err = cerr
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || w.abandoned {
		os.Remove(w.tmp.Name())
		return err
	}
	if st, serr := os.Stat(w.target); serr == nil {
		_ = os.Chmod(w.tmp.Name(), st.Mode().Perm())
	} else {
		_ = os.Chmod(w.tmp.Name(), 0o644)
	}
	if err := os.Rename(w.tmp.Name(), w.target); err != nil {
		os.Remove(w.tmp.Name())
		return err
	}
	w.renamed = true
	return nil
}

// abandon removes the temporary file unless it was renamed already, and
// reports whether it did.
func (w *tempWrite) abandon() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.renamed {
		return false
	}
	w.abandoned = true
	os.Remove(w.tmp.Name())
	return true
}

// outputTarget is the file -o writes: path, or the file a symbolic link
// there leads to, which need not exist yet.
func outputTarget(path string) (string, error) {
	target := path
	for hops := 0; ; hops++ {
		st, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil
		}
		if err != nil {
			return "", fileError(path, "cannot write the output", err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			if !st.Mode().IsRegular() {
				return "", &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "cannot write the output: not a regular file",
					Hints: []string{"-o writes a file, atomically; to write to a device or a pipe, leave -o out and redirect stdout"}}
			}
			return target, nil
		}
		if hops == 40 {
			return "", &engine.Error{Kind: engine.KindUsage, Path: path, Reason: "cannot write the output: too many levels of symbolic links"}
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", fileError(path, "cannot write the output", err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
}

// removeStale removes the temporary files of writes to dir/base whose
// process is gone: left by a render that was killed while it wrote.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + "."
	for _, e := range entries {
		middle, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if middle, ok = strings.CutSuffix(middle, ".tmp"); !ok {
			continue
		}
		pid, random, ok := strings.Cut(middle, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || !digits(random) || n == os.Getpid() || processExists(n) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// processExists reports whether a process with this id runs, as far as
// can be told: when in doubt, it does.
func processExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	if runtime.GOOS == "windows" {
		return true // FindProcess found it
	}
	err = p.Signal(syscall.Signal(0))
	return !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH)
}

func jsonBytes(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// readInput reads -i FILE, -i - (stdin), or stdin when it is not a terminal.
// It reads no more than the input size limit (--max-input) and one byte:
// an endless stream (-i /dev/zero, a producer that never stops) is refused
// once past the limit, without being read to its end.
func (a *app) readInput(path string) (engine.Input, error) {
	limit := a.limits.InputBytes
	if limit <= 0 {
		limit = engine.DefaultLimits().InputBytes
	}
	return a.readLimited(path, limit)
}

// readPrompt reads a rendered prompt (render extract's input), which may be
// as large as a render may write: up to the larger of --max-input and
// --max-output.
func (a *app) readPrompt(path string) (engine.Input, error) {
	d := engine.DefaultLimits()
	in, out := a.limits.InputBytes, a.limits.OutputBytes
	if in <= 0 {
		in = d.InputBytes
	}
	if out <= 0 {
		out = d.OutputBytes
	}
	return a.readLimited(path, max(in, out))
}

func (a *app) readLimited(path string, limit int) (engine.Input, error) {
	if path == "" || path == "-" {
		if path == "" {
			if f, ok := a.stdin.(*os.File); ok {
				if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
					return engine.Input{}, usageError("no input: give -i FILE, -i - for stdin, or --example NAME")
				}
			}
		}
		data, err := io.ReadAll(io.LimitReader(a.stdin, int64(limit)+1))
		if err != nil {
			return engine.Input{}, usageError("cannot read stdin: %v", err)
		}
		return limitInput(engine.Input{Name: "stdin", Data: data}, limit)
	}
	f, err := regular.Open(path)
	if err != nil {
		return engine.Input{}, fileError(path, "cannot read the input", err, notRegularHint(err, "an input")...)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > int64(limit) {
		return engine.Input{}, inputTooLarge(path, fmt.Sprintf("the input is %s, over the limit of %s", phrase.Size(int(st.Size())), phrase.Size(limit)))
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return engine.Input{}, fileError(path, "cannot read the input", err)
	}
	return limitInput(engine.Input{Name: path, Data: data}, limit)
}

// limitInput refuses an input read up to one byte past the limit.
func limitInput(in engine.Input, limit int) (engine.Input, error) {
	if len(in.Data) > limit {
		return engine.Input{}, inputTooLarge(in.Name, fmt.Sprintf("the input is over the limit of %s; reading stopped there", phrase.Size(limit)))
	}
	return in, nil
}

func inputTooLarge(name, reason string) error {
	return (&engine.Error{Kind: engine.KindInput, Position: name, Reason: reason}).
		Hint("send a smaller input, or raise the limit with --max-input (for render extract, --max-output too)")
}
