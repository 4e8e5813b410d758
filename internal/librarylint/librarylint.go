// Package librarylint gathers what render lint reports about a library:
// each variant's static findings (engine's Variant.Lint) and its examples
// rendered, checked and compared with their golden files. render lint and
// the preview page of render serve both use it, so that they agree.
package librarylint

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/lint"
	"github.com/promptsmith/promptsmith/internal/golden"
)

// Findings lints the named variants of lib (all when none is). A variant
// that does not load, or is served from its last good version
// (engine.Library.Stale), is one finding per problem of its error. With a
// goldenDir (testdata/golden of a working copy) every example is rendered
// and compared with its golden file there; without one only the static
// checks run. An unknown variant name is the error returned.
func Findings(ctx context.Context, lib *engine.Library, goldenDir string, names []string) ([]lint.Finding, error) {
	if len(names) == 0 {
		names = lib.Names()
	}
	var out []lint.Finding
	var loaded []string
	for _, name := range names {
		v, err := lib.Variant(name)
		if err == nil {
			err = lib.Stale(name)
		}
		if err != nil {
			var e *engine.Error
			if errors.As(err, &e) && e.Kind == engine.KindUsage {
				return nil, err
			}
			out = append(out, ErrorFindings(err)...)
			continue
		}
		loaded = append(loaded, name)
		out = append(out, v.Lint()...)
	}
	if goldenDir == "" || len(loaded) == 0 {
		return out, nil
	}
	outcomes, err := golden.Examples(ctx, lib, goldenDir, loaded, false)
	if err != nil {
		return nil, err
	}
	for _, o := range outcomes {
		if o.OK() || (o.Status == golden.Failed && o.Example == "") { // a broken variant is reported above
			continue
		}
		pos := o.File
		if o.Example != "" && o.Status == golden.Failed {
			if ex, err := lib.Variant(o.Variant); err == nil {
				if in, err := ex.Example(o.Example); err == nil {
					pos = in.Name
				}
			}
		}
		msg := strings.SplitN(o.String(), "\n", 2)[0]
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, "FAIL "), o.File+": ")
		if o.Status == golden.Failed {
			for _, f := range ErrorFindings(o.Err) {
				f.Message = "example " + o.Example + ": " + f.Message
				if f.Position == "" {
					f.Position = pos
				}
				out = append(out, f)
			}
			continue
		}
		out = append(out, lint.Finding{Position: pos, Severity: lint.Error, Message: msg + "; render test shows the diff"})
	}
	return out, nil
}

// GoldenDir is the folder of a working copy's golden files:
// root/testdata/golden.
func GoldenDir(root string) string { return filepath.Join(root, "testdata", "golden") }

// ErrorFindings turns an engine error, with the problems in its Also, into
// findings.
func ErrorFindings(err error) []lint.Finding {
	e := engine.AsError(err)
	var out []lint.Finding
	for _, x := range append([]*engine.Error{e}, e.Also...) {
		msg := x.Reason
		if x.Field != "" {
			msg = x.Field + ": " + msg
		}
		if len(x.Hints) > 0 {
			msg += " (" + strings.Join(x.Hints, "; ") + ")"
		}
		out = append(out, lint.Finding{Position: x.Position, Severity: lint.Error, Message: msg})
	}
	return out
}
