package labels

import "errors"

// The causes the errors of Lookup wrap (engine.Error.Err), for a server
// to answer by: errors.Is(err, ErrUnknownLabel) is a 404, ErrConflict a
// 409.
var (
	// ErrUnknownLabel: the request names a label that is not configured.
	ErrUnknownLabel = errors.New("unknown label")
	// ErrConflict: the request pins a library the label no longer (or
	// not yet) serves.
	ErrConflict = errors.New("label serves another library")
	// ErrFailing: the label has served nothing since start, its ref
	// naming a commit (or nothing) it cannot serve: a 503.
	ErrFailing = errors.New("label failing")
)
