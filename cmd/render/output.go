package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/promptsmith/promptsmith/engine"
)

// fail prints err to stderr, as JSON under --format json, and returns the
// exit status: 1 for a failed check, 2 for everything else.
func (a *app) fail(err error) int {
	kind, body, text := describe(err)
	if a.format == "json" {
		b, _ := json.MarshalIndent(map[string]any{"error": body}, "", "  ")
		fmt.Fprintf(a.stderr, "%s\n", b)
	} else {
		a.say("%s", text)
	}
	if kind == engine.KindCheck {
		return 1
	}
	return 2
}

// say prints one message of the command on stderr, behind its name.
func (a *app) say(format string, args ...any) {
	fmt.Fprintf(a.stderr, "render: "+format+"\n", args...)
}

// writeOutput writes to stdout, or to path atomically: the bytes go to a
// temporary file beside it that is renamed over path only once complete, so
// a failure never leaves a partial file or touches an existing one.
func (a *app) writeOutput(path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := a.stdout.Write(data)
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fileError(path, "cannot write the output", err, "check that the folder exists and is writable")
	}
	defer os.Remove(tmp.Name()) // a no-op after a successful rename
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if st, serr := os.Stat(path); serr == nil {
			_ = os.Chmod(tmp.Name(), st.Mode().Perm())
		} else {
			_ = os.Chmod(tmp.Name(), 0o644)
		}
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fileError(path, "cannot write the output", err)
	}
	return nil
}

func jsonBytes(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// readInput reads -i FILE, -i - (stdin), or stdin when it is not a terminal.
func (a *app) readInput(path string) (engine.Input, error) {
	if path == "" || path == "-" {
		if path == "" {
			if f, ok := a.stdin.(*os.File); ok {
				if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
					return engine.Input{}, usageError("no input: give -i FILE, -i - for stdin, or --example NAME")
				}
			}
		}
		data, err := io.ReadAll(a.stdin)
		if err != nil {
			return engine.Input{}, usageError("cannot read stdin: %v", err)
		}
		return engine.Input{Name: "stdin", Data: data}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return engine.Input{}, fileError(path, "cannot read the input", err)
	}
	return engine.Input{Name: path, Data: data}, nil
}
