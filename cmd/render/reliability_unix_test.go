//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// bigOutput writes a library of one variant, bulk, whose prompt is about
// 8 MB whatever its input: long enough to write that a signal sent once
// the temporary file appears lands while it is written. It returns the
// arguments that render it from an empty input, with the flags that let
// it through.
func bigOutput(t *testing.T) []string {
	t.Helper()
	line := "Always run the tests before committing, and say which ones you ran.\n"
	dir := fixture.WriteFiles(t, map[string]string{
		"schemas/bulk.schema.json":       `{"type": "object"}`,
		"templates/bulk/prompt.yaml":     "sections: [body]\n",
		"templates/bulk/body.md.tmpl":    "{{ repeat " + strconv.Itoa(8_000_000/len(line)) + " " + strconv.Quote(line) + " }}",
		"templates/bulk/examples/e.yaml": "{}\n",
	})
	return []string{"bulk", "--example", "e", "--templates", dir, "--max-output", "200000000"}
}

func temporaryFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

// startCommand starts cmd with its stderr going to the buffer it returns;
// the channel receives what cmd.Wait returns.
func startCommand(t *testing.T, cmd *exec.Cmd) (*bytes.Buffer, <-chan error) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return &stderr, exited
}

// TestSignalMidWriteLeavesNothing sends SIGINT and SIGTERM to a real
// render while it writes an 8 MB prompt to -o: it removes its temporary
// file, leaves the old file as it was and dies of the signal. A signal
// that comes after the rename finds the new file complete. Either way no
// temporary file is left. Then SIGKILL, which cannot be caught: the next
// render to the same file removes what the killed one left.
func TestSignalMidWriteLeavesNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the command and writes 8 MB outputs")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.md")
	args := append(bigOutput(t), "-o", out)
	full, err := renderCommand(t, context.Background(), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("a plain render: %v %s", err, full)
	}
	complete, _ := os.ReadFile(out)
	changes := dirChanges(t, dir)

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		interrupted := 0
		for try := 0; try < 20 && interrupted < 2; try++ {
			if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := renderCommand(t, context.Background(), args...)
			stderr, exited := startCommand(t, cmd)
			// Wait for the temporary file to appear, then signal at once.
			var werr error
		watch:
			for {
				select {
				case werr = <-exited:
					break watch
				default:
				}
				if len(temporaryFiles(t, dir)) > 0 {
					cmd.Process.Signal(sig)
					werr = <-exited
					break
				}
				select {
				case <-changes:
				case werr = <-exited:
					break watch
				}
			}
			got, _ := os.ReadFile(out)
			var ee *exec.ExitError
			switch {
			case werr == nil:
				if !bytes.Equal(got, complete) {
					t.Fatalf("%v: exit 0 but -o holds %d bytes, not the %d of the prompt", sig, len(got), len(complete))
				}
			case errors.As(werr, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
				interrupted++
				if string(got) != "old\n" && !bytes.Equal(got, complete) {
					t.Fatalf("%v: -o holds %d bytes, neither the old file nor the prompt", sig, len(got))
				}
				if sig != syscall.SIGKILL && string(got) == "old\n" && !strings.Contains(stderr.String(), "was not written") {
					t.Errorf("%v: stderr %q", sig, stderr.String())
				}
			default:
				t.Fatalf("%v: %v\n%s", sig, werr, stderr.String())
			}
			if sig == syscall.SIGKILL {
				// What the kill left is removed by the next render to the file.
				t.Logf("SIGKILL left %d temporary file(s)", len(temporaryFiles(t, dir)))
				if out, err := renderCommand(t, context.Background(), args...).CombinedOutput(); err != nil {
					t.Fatalf("the render after a kill: %v %s", err, out)
				}
			}
			if tmp := temporaryFiles(t, dir); len(tmp) > 0 {
				t.Fatalf("%v: temporary files left: %v\n%s", sig, tmp, stderr.String())
			}
		}
		t.Logf("%v: %d run(s) interrupted while writing", sig, interrupted)
		if interrupted == 0 {
			t.Errorf("%v: no signal of 20 came while render wrote", sig)
		}
	}
}

// TestOutputRefusesAFIFO: -o naming a FIFO (or a device) is refused, where
// renaming over it replaced it with a file.
func TestOutputRefusesAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	r := runCLI(t, validInput, "delegation", "-i", "-", "-o", fifo)
	if r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("exit %d, %s", r.code, r.stderr)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st, err)
	}
	if tmp := temporaryFiles(t, filepath.Dir(fifo)); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestInputFromADevice: -i /dev/zero is refused as a device before a byte
// of it is read, saying to pipe it to stdin instead; stdin is read up to
// the limit, not forever.
func TestInputFromADevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	r := runCLI(t, "", "delegation", "-i", "/dev/zero", "--max-input", "1048576")
	if r.code != 2 || !strings.Contains(r.stderr, "/dev/zero: cannot read the input: not a regular file: it is a device") || !strings.Contains(r.stderr, "-i -") {
		t.Errorf("exit %d, %s", r.code, r.stderr)
	}
	r = runCLI(t, strings.Repeat("x", 2<<20), "delegation", "-i", "-", "--max-input", "1048576")
	if r.code != 2 || !strings.Contains(r.stderr, "stdin: the input is over the limit of 1 MiB; reading stopped there") {
		t.Errorf("exit %d, %s", r.code, r.stderr)
	}
}

// TestInputFilesThatArePipes: a named pipe is refused wherever the
// command line reads a file (render diff --inputs, which read it and
// waited for a writer forever; -i; --token-file; --audit-key; a labels
// file), naming the file and what it is, without blocking.
func TestInputFilesThatArePipes(t *testing.T) {
	t.Parallel()
	r := versioned(t)
	inputs := fixture.WriteFiles(t, map[string]string{"note/a.yaml": "title: A\n"})
	fifo := filepath.Join(inputs, "note", "b.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	got := runCLI(t, "", "--templates", r.Dir, "diff", "v1", "--inputs", inputs)
	if got.code != 2 || !strings.Contains(got.stderr, fifo+": cannot read the input: not a regular file: it is a named pipe (FIFO)") ||
		!strings.Contains(got.stderr, "inputs are regular files") {
		t.Errorf("render diff --inputs with a FIFO: exit %d\n%s", got.code, got.stderr)
	}
	got = runCLI(t, "", "--templates", r.Dir, "note", "-i", fifo)
	if got.code != 2 || !strings.Contains(got.stderr, "not a regular file: it is a named pipe (FIFO)") || !strings.Contains(got.stderr, "-i -") {
		t.Errorf("-i FIFO: exit %d\n%s", got.code, got.stderr)
	}
	link := filepath.Join(t.TempDir(), "link.yaml")
	os.Symlink(fifo, link)
	got = runCLI(t, "", "--templates", r.Dir, "note", "-i", link)
	if got.code != 2 || !strings.Contains(got.stderr, "it is a named pipe (FIFO)") {
		t.Errorf("-i link to a FIFO: exit %d\n%s", got.code, got.stderr)
	}
	if _, err := readToken(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("--token-file FIFO: %v", err)
	}
	if _, err := readAuditKey(fifo, "--audit-key"); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("--audit-key FIFO: %v", err)
	}
	if _, err := labels.ReadFile(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("--labels-file FIFO: %v", err)
	}
}

// TestGatherStopsOnSIGTERM: render gather, waiting on a probe that would
// run for ten minutes and on an AGENTS.md that is a FIFO, ends when it is
// sent SIGTERM, killing the probe's processes, and exits non-zero.
func TestGatherStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := renderBinary(t)
	lib := hostLibrary(t)
	manifest := filepath.Join(lib, "templates", "host", "prompt.yaml")
	replaceInFile(t, manifest, "timeout: 200ms", "timeout: 10m")
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "AGENTS.md"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	started := filepath.Join(t.TempDir(), "started")
	bdDir := t.TempDir()
	os.WriteFile(filepath.Join(bdDir, "bd"), []byte("#!/bin/sh\necho $$ > "+started+".tmp\nmv "+started+".tmp "+started+"\nexec sleep 600\n"), 0o755)
	cmd := exec.Command(bin, "gather", "host", "--templates", lib, "--dir", dir)
	cmd.Env = append(os.Environ(), "PATH="+bdDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	changes := dirChanges(t, filepath.Dir(started))
	stderr, exited := startCommand(t, cmd)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("gather ended before its probe started: %v\n%s", err, stderr.String())
		case <-changes:
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("exit %v, stderr %s", err, stderr.String())
		}
		pid, _ := os.ReadFile(started)
		if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err != nil || syscall.Kill(n, 0) != syscall.ESRCH {
			t.Errorf("the probe's process %q was left running (%v)", pid, err)
			if err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("render gather did not stop on SIGTERM\n%s", stderr.String())
	}
}
