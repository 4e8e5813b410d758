package server

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/lint"
	"github.com/promptsmith/promptsmith/internal/librarylint"
	"github.com/promptsmith/promptsmith/tokens"
)

// What the preview page asks beyond renders: a render fitted to a token
// budget, the findings of render lint, and the diff against a golden file.

// lintReport is the answer of GET /v1/variants/{variant}/lint.
type lintReport struct {
	Variant  string         `json:"variant"`
	Findings []lint.Finding `json:"findings"`
}

// goldenReport is the answer of GET /v1/variants/{variant}/examples/{example}/golden.
type goldenReport struct {
	Variant  string `json:"variant"`
	Example  string `json:"example"`
	File     string `json:"file"`
	Status   string `json:"status"`
	Golden   string `json:"golden"`
	Rendered string `json:"rendered"`
	Diff     string `json:"diff"`
}

// The golden statuses, as render test prints them.
const (
	goldenSame    = "ok"
	goldenDiffers = "differs"
	goldenMissing = "missing"
)

// previewComponents names the preview's types in components.schemas.
func previewComponents() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[lintReport]():    "LintReport",
		reflect.TypeFor[lint.Finding]():  "Finding",
		reflect.TypeFor[goldenReport]():  "GoldenReport",
		reflect.TypeFor[libraryStatus](): "LibraryStatus",
	}
}

// previewDescriptions document the preview's types in the OpenAPI document.
func previewDescriptions() map[string]string {
	return map[string]string{
		"LintReport":            "What render lint finds in a variant.",
		"LintReport.variant":    "The variant linted.",
		"LintReport.findings":   "Each finding, as render lint --format json lists them; none when the variant is clean.",
		"Finding":               "One thing lint found.",
		"Finding.position":      "file:line:col in the library (\"templates/space/goals.md.tmpl:3:9\"), never a path on the server's disk.",
		"Finding.severity":      "error fails render lint; warning does not.",
		"Finding.message":       "What is wrong, and the fix when there is one.",
		"GoldenReport":          "An example's prompt as the server renders it now, beside its golden file.",
		"GoldenReport.variant":  "The variant rendered.",
		"GoldenReport.example":  "The example rendered.",
		"GoldenReport.file":     "The golden file, relative to the working copy: testdata/golden/<variant>/<example>.md, or <example>.<max_tokens>-tokens.md for a budget_examples entry.",
		"GoldenReport.status":   "ok (the prompt is the golden file), differs (diff shows how) or missing (no golden file yet: render test --update writes it).",
		"GoldenReport.golden":   "The golden file's content; empty when it is missing.",
		"GoldenReport.rendered": "The prompt rendered now.",
		"GoldenReport.diff":     "A unified diff from the golden file to the prompt; empty unless status is differs.",
		"LibraryStatus":         "The data of an event of GET /v1/events: the library served now, and whether the working copy loads.",
		"LibraryStatus.library": "The short hash (12 hex digits) of the library served.",
		"LibraryStatus.ok":      "Whether every variant of the working copy, as it is now, loads.",
		"LibraryStatus.stale":   "The last reload failed altogether (error says why): everything served is the last library that loaded.",
		"LibraryStatus.error":   "Why the working copy does not load: the reload that failed, or the variants that do not load (each in also), which are served from their last good version (GET /v1/variants says which).",
	}
}

// renderOptions reads a render's ?max_tokens=N&tokens=ENC: the prompt is
// fitted to N tokens counted with ENC (the server's Tokens by default),
// and its token counts, per section too, are in ENC. The counter is nil
// without tokens.
func (s *Server) renderOptions(r *http.Request) ([]engine.RenderOption, *tokens.Counter, error) {
	q := r.URL.Query()
	enc, max := q.Get("tokens"), 0
	if m := q.Get("max_tokens"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 {
			return nil, nil, &engine.Error{Kind: engine.KindUsage, Parameter: "max_tokens",
				Reason: fmt.Sprintf("max_tokens %q is not a whole number of 1 or more", m)}
		}
		max = n
		if enc == "" {
			enc = s.Tokens
		}
		if enc == "" {
			return nil, nil, &engine.Error{Kind: engine.KindUsage, Parameter: "max_tokens", Reason: "a budget needs an encoding to count tokens with",
				Hints: []string{"add &tokens=o200k_base (or " + strings.Join(tokens.Encodings, ", ") + ")"}}
		}
	}
	if enc == "" {
		return nil, nil, nil
	}
	tc, err := s.counters.get(enc)
	if err != nil {
		return nil, nil, &engine.Error{Kind: engine.KindUsage, Parameter: "tokens", Reason: err.Error()}
	}
	if max == 0 {
		return nil, tc, nil
	}
	return []engine.RenderOption{engine.FitTokens(max, tc)}, tc, nil
}

// countTokens counts the tokens of a prompt and of each of its sections
// with tc, when there is one.
func countTokens(res *engine.Result, tc *tokens.Counter) {
	if res == nil || tc == nil {
		return
	}
	if res.Budget == nil {
		res.Tokens = tc.CountTokens(res.Text)
	}
	for i, sec := range res.Sections {
		if sec.Start >= 0 && sec.End <= len(res.Text) && sec.Start <= sec.End {
			res.Sections[i].Tokens = tc.CountTokens(res.Text[sec.Start:sec.End])
		}
	}
}

// counters are the token encodings requests have asked for, each loaded
// once: there are four.
type counters struct {
	mu sync.Mutex
	by map[string]*tokens.Counter
}

func (c *counters) get(enc string) (*tokens.Counter, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tc := c.by[enc]; tc != nil {
		return tc, nil
	}
	tc, err := tokens.New(enc)
	if err != nil {
		return nil, err
	}
	if c.by == nil {
		c.by = map[string]*tokens.Counter{}
	}
	c.by[enc] = tc
	return tc, nil
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
	st := s.state.Load()
	name := r.PathValue("variant")
	if _, err := st.lib.Variant(name); err != nil && errors.Is(err, engine.ErrUnknownVariant) {
		s.writeError(w, r, err)
		return
	}
	e := st.lint.entry(name)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		ctx, cancel := s.renderContext(r.Context())
		defer cancel()
		if err := s.enter(ctx); err != nil {
			s.writeError(w, r, answerError(ctx, err))
			return
		}
		golden := ""
		if s.WorkingCopy != "" {
			golden = librarylint.GoldenDir(s.WorkingCopy)
		}
		findings, err := librarylint.Findings(ctx, st.lib, golden, []string{name})
		s.leave()
		if err != nil {
			s.writeError(w, r, answerError(ctx, err))
			return
		}
		for i := range findings {
			findings[i].Position = s.position(findings[i].Position, name)
		}
		e.findings, e.done = nonNil(findings), true
	}
	writeJSON(w, http.StatusOK, lintReport{Variant: name, Findings: e.findings})
}

// golden answers GET .../examples/{example}/golden: the example rendered
// now (with ?max_tokens and ?tokens as a render takes them) beside its
// golden file in the working copy: <example>.md, or the file of the
// manifest's budget_examples entry for that budget.
func (s *Server) golden(w http.ResponseWriter, r *http.Request) {
	lib := s.lib()
	name, example := r.PathValue("variant"), r.PathValue("example")
	dir := s.goldenDir()
	if dir == "" {
		s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
			Reason: "this server has no working copy with golden files",
			Hints:  []string{"start it with render serve --templates DIR, DIR holding testdata/golden (render test --update writes it)"}, Err: errNotFound})
		return
	}
	v, err := lib.Variant(name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	in, err := v.Example(example)
	if err != nil {
		writeJSONError(w, http.StatusNotFound, err)
		return
	}
	opts, _, err := s.renderOptions(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	file := example + ".md"
	if max := r.URL.Query().Get("max_tokens"); max != "" {
		file = ""
		for _, be := range v.Manifest().BudgetExamples {
			if be.Example == example && strconv.Itoa(be.MaxTokens) == max && be.Encoding() == s.encodingOf(r) {
				file = be.Golden()
			}
		}
		if file == "" {
			s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
				Reason: fmt.Sprintf("example %s has no golden file at max_tokens %s with %s", example, max, s.encodingOf(r)),
				Hints:  []string{"the budget_examples of templates/" + name + "/prompt.yaml list the budgets that have one"}, Err: errNotFound})
			return
		}
	}
	ctx, cancel := s.renderContext(r.Context())
	defer cancel()
	if err := s.enter(ctx); err != nil {
		s.writeError(w, r, answerError(ctx, err))
		return
	}
	res, err := lib.Render(ctx, name, in, opts...)
	s.leave()
	if err != nil {
		s.writeError(w, r, answerError(ctx, err))
		return
	}
	rel := filepath.ToSlash(filepath.Join("testdata", "golden", name, file))
	out := goldenReport{Variant: name, Example: example, File: rel, Rendered: res.Text}
	want, err := os.ReadFile(filepath.Join(dir, name, file))
	switch {
	case errors.Is(err, os.ErrNotExist):
		out.Status = goldenMissing
	case err != nil:
		s.writeError(w, r, &engine.Error{Kind: engine.KindInternal, Reason: "cannot read the golden file " + rel, Err: err})
		return
	case string(want) == res.Text:
		out.Status, out.Golden = goldenSame, string(want)
	default:
		out.Status, out.Golden = goldenDiffers, string(want)
		out.Diff = udiff.Unified(rel, "rendered", string(want), res.Text)
	}
	writeJSON(w, http.StatusOK, out)
}

// goldenDir is the working copy's folder of golden files, or "" when
// there is none.
func (s *Server) goldenDir() string {
	if s.WorkingCopy == "" {
		return ""
	}
	dir := librarylint.GoldenDir(s.WorkingCopy)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// offers reports whether the server answers a route of the preview that
// depends on how it runs: the golden files need a working copy that has
// them, the events StreamEvents. The OpenAPI document lists the others
// only.
func (s *Server) offers(path string) bool {
	switch path {
	case "/v1/variants/{variant}/examples/{example}/golden":
		return s.goldenDir() != ""
	case "/v1/events":
		s.events.mu.Lock()
		defer s.events.mu.Unlock()
		return s.events.done != nil
	}
	return true
}

// encodingOf is the encoding a request counts tokens with.
func (s *Server) encodingOf(r *http.Request) string {
	if enc := r.URL.Query().Get("tokens"); enc != "" {
		return enc
	}
	return s.Tokens
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
