package main

import (
	"fmt"

	"github.com/promptsmith/promptsmith/engine"
)

// usageError is a mistake in the command line.
func usageError(format string, args ...any) error {
	return &engine.Error{Kind: engine.KindUsage, Reason: fmt.Sprintf(format, args...), Hints: []string{"run render --help"}}
}

// fileError is a file the command could not read or write.
func fileError(path, reason string, err error, hints ...string) error {
	return &engine.Error{Kind: engine.KindUsage, Path: path, Reason: reason + ": " + err.Error(), Hints: hints, Err: err}
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
