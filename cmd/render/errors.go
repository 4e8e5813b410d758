package main

import (
	"errors"
	"fmt"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/regular"
)

// usageError is a mistake in the command line.
func usageError(format string, args ...any) error {
	return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf(format, args...), Hints: []string{"run render --help"}}
}

// fileError is a file the command could not read or write.
func fileError(path, reason string, err error, hints ...string) error {
	return &engine.Error{Kind: engine.KindUsage, Path: path, Reason: reason + ": " + err.Error(), Hints: hints, Err: err}
}

// notRegularHint is what to do about err where it is the error of a file
// that is not regular (a named pipe, a device): what, such as "an input",
// is read from a file, or from stdin.
func notRegularHint(err error, what string) []string {
	if !errors.Is(err, regular.ErrNotRegular) {
		return nil
	}
	return []string{"render reads " + what + " from a regular file, never a pipe or a device, which could block it or never end; " +
		"to read from a pipe, write it to a file first (or, for an input, give -i - and pipe it to stdin)"}
}

// exitCode is the exit status of a command that failed with an error of
// kind: 1 when what it checked failed (a manifest check, a stored record
// that does not verify), 2 for everything else.
func exitCode(kind engine.Kind) int {
	switch kind {
	case engine.KindCheck, engine.KindIntegrity:
		return 1
	}
	return 2
}
