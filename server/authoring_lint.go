package server

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/librarylint"
	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// lintReport is the answer of GET /v1/variants/{variant}/lint.
type lintReport struct {
	Variant  string         `json:"variant"`
	Findings []lint.Finding `json:"findings"`
}

// lintCache keeps a library's findings per variant: lint renders every
// example, and the library never changes. An attempt that failed (its
// client left) is not kept.
type lintCache struct {
	mu sync.Mutex
	by map[string]*lintEntry
}

type lintEntry struct {
	mu       sync.Mutex
	done     bool
	findings []lint.Finding
}

func (c *lintCache) entry(variant string) *lintEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]*lintEntry{}
	}
	if c.by[variant] == nil {
		c.by[variant] = &lintEntry{}
	}
	return c.by[variant]
}

// lint answers GET /v1/variants/{variant}/lint: what render lint --templates
// finds in the variant, its examples rendered against the working copy's
// golden files (without a working copy, the static checks alone). A
// variant that does not load is its error, one finding per problem.
func (s *Server) lint(w http.ResponseWriter, r *http.Request) {
	st := s.stateForAnswer(w, r)
	if st == nil {
		return
	}
	name := r.PathValue("variant")
	if _, err := st.lib.Variant(name); err != nil && errors.Is(err, engine.ErrUnknownVariant) {
		s.writeError(w, r, err)
		return
	}
	e := st.lint.entry(name)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		findings, err := s.findings(r.Context(), st.lib, name)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if r.Context().Err() != nil {
			// The client left while its examples rendered: the renders it
			// stopped are findings of its attempt only, not to be kept.
			s.writeError(w, r, stoppedError(r.Context(), context.Canceled))
			return
		}
		e.findings, e.done = findings, true
	}
	writeJSON(w, http.StatusOK, lintReport{Variant: name, Findings: e.findings})
}

// findings lints a variant of lib in a render slot, its positions made
// relative to the working copy.
func (s *Server) findings(ctx context.Context, lib *engine.Library, name string) ([]lint.Finding, error) {
	golden := ""
	if s.WorkingCopy != "" {
		golden = librarylint.GoldenDir(s.WorkingCopy)
	}
	findings, err := inSlot(s, ctx, func(ctx context.Context) ([]lint.Finding, error) {
		return librarylint.Findings(ctx, lib, golden, []string{name})
	})
	if err != nil {
		return nil, err
	}
	for i, f := range findings {
		findings[i].Position = s.position(f.Position, name)
		if findings[i].Position != f.Position && findings[i].Position != "" {
			// A message that quotes its position ("{{if}} opened at ...")
			// names the server's disk no more than the position does.
			findings[i].Message = strings.ReplaceAll(f.Message, f.Position, findings[i].Position)
		}
	}
	return nonNil(findings), nil
}

// position makes a position in the working copy relative to it, like
// every position the API answers with.
func (s *Server) position(pos, variant string) string {
	if s.WorkingCopy != "" && filepath.IsAbs(pos) {
		if root, err := filepath.Abs(s.WorkingCopy); err == nil {
			if rel, err := filepath.Rel(root, pos); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
	}
	return relPosition(pos, variant)
}

func lintOp() openapi.Operation {
	return openapi.Operation{Summary: "What render lint finds in a variant",
		Description: "The static checks of render lint (every field every template reads, in every branch, against the schema; includes; " +
			"the schema's defaults, examples and descriptions) and, for a working copy, every example rendered, checked and compared with its golden file. " +
			"A variant that does not load, or is served from its last good version, is one finding per problem of its error.",
		Params:  []openapi.Param{openapi.VariantParam},
		Replies: []openapi.Reply{openapi.JSONReply(200, "The findings.", openapi.TypeOf[lintReport]())},
		Shared:  []int{404, 500, 503}, Labelled: true}
}
