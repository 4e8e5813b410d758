package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aymanbagabas/go-udiff"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/librarylint"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// goldenReport is the answer of GET /v1/variants/{variant}/examples/{example}/golden.
type goldenReport struct {
	Variant  string `json:"variant"`
	Example  string `json:"example"`
	File     string `json:"file"`
	Status   string `json:"status"`
	Golden   string `json:"golden"`
	Rendered string `json:"rendered"`
	Diff     string `json:"diff"`
	// Stale says why, when the prompt was rendered from the variant's last
	// good version (stale.go).
	Stale *engine.Error `json:"stale,omitempty"`
}

// The golden statuses, as render test prints them.
const (
	goldenSame    = "ok"
	goldenDiffers = "differs"
	goldenMissing = "missing"
)

// golden answers GET .../examples/{example}/golden: the example rendered
// now (with ?max_tokens and ?tokens as a render takes them) beside its
// golden file in the working copy: <example>.md, or the file of the
// manifest's budget_examples entry for that budget.
func (s *Server) golden(w http.ResponseWriter, r *http.Request) {
	name, example := r.PathValue("variant"), r.PathValue("example")
	dir := s.goldenDir()
	if dir == "" {
		s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
			Reason: "this server has no working copy with golden files",
			Hints:  []string{"start it with render serve --templates DIR, DIR holding testdata/golden (render test --update writes it)"}, Err: errNotFound})
		return
	}
	src, err := s.labelSource(w, r, name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	provenanceHeaders(w, src)
	fail := func(err error) { s.writeStaleError(w, r, err, src.stale) }
	v := src.v
	in, err := exampleOf(v, example)
	if err != nil {
		fail(err)
		return
	}
	ask, err := s.tokenAsk(r)
	if err != nil {
		fail(err)
		return
	}
	file, err := goldenFile(r, v, example, ask)
	if err != nil {
		fail(err)
		return
	}
	res, err := inSlot(s, r.Context(), func(ctx context.Context) (*engine.Result, error) {
		return v.Render(ctx, in, ask.fit()...)
	})
	if err != nil {
		fail(err)
		return
	}
	resultHeaders(w, res.Provenance)
	out, err := compareGolden(dir, name, example, file, res.Text)
	if err != nil {
		fail(err)
		return
	}
	out.Stale = src.stale
	writeJSON(w, http.StatusOK, out)
}

// goldenFile is the name of an example's golden file in its variant's
// folder: <example>.md, or, for a budget (?max_tokens), the file of the
// manifest's budget_examples entry for it, which must exist.
func goldenFile(r *http.Request, v *engine.Variant, example string, ask tokenAsk) (string, error) {
	max := r.URL.Query().Get("max_tokens")
	if max == "" {
		return example + ".md", nil
	}
	for _, be := range v.Manifest().BudgetExamples {
		if be.Example == example && strconv.Itoa(be.MaxTokens) == max && be.Encoding() == ask.enc {
			return be.Golden(), nil
		}
	}
	return "", &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path,
		Reason: fmt.Sprintf("example %s has no golden file at max_tokens %s with %s", example, max, ask.enc),
		Hints:  []string{"the budget_examples of templates/" + v.Name() + "/prompt.yaml list the budgets that have one"}, Err: errNotFound}
}

// compareGolden compares a prompt rendered now with the golden file in
// dir/variant.
func compareGolden(dir, variant, example, file, rendered string) (goldenReport, error) {
	rel := filepath.ToSlash(filepath.Join("testdata", "golden", variant, file))
	out := goldenReport{Variant: variant, Example: example, File: rel, Rendered: rendered}
	want, err := os.ReadFile(filepath.Join(dir, variant, file))
	switch {
	case errors.Is(err, os.ErrNotExist):
		out.Status = goldenMissing
	case err != nil:
		return goldenReport{}, &engine.Error{Kind: engine.KindInternal, Reason: "cannot read the golden file " + rel, Err: err}
	case string(want) == rendered:
		out.Status, out.Golden = goldenSame, string(want)
	default:
		out.Status, out.Golden = goldenDiffers, string(want)
		out.Diff = udiff.Unified(rel, "rendered", string(want), rendered)
	}
	return out, nil
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

// hasGoldenFiles reports whether the server serves a working copy with
// golden files: the document lists GET .../golden only then.
func (s *Server) hasGoldenFiles() bool { return s.goldenDir() != "" }

func goldenOp() openapi.Operation {
	return openapi.Operation{Summary: "An example's prompt as rendered now, beside its golden file in the working copy",
		Description: "Renders the example (fitted to max_tokens, as a render is) and compares the prompt with testdata/golden/<variant>/<example>.md " +
			"of the working copy, or with the file of the manifest's budget_examples entry for that budget, as render test does. " +
			"Listed only when the server serves a working copy that has a testdata/golden folder. " + openapi.StaleDoc,
		Params: []openapi.Param{openapi.VariantParam, openapi.ExampleParam, openapi.MaxTokensParam, tokensParam},
		Replies: []openapi.Reply{
			openapi.JSONReply(200, "The comparison.", openapi.TypeOf[goldenReport](), openapi.ProvenanceHeaders()...),
			openapi.JSONReply(404, "No such variant, example or golden file for that budget.", openapi.TypeOf[errorBody]()),
			openapi.JSONReply(422, "The example does not render, or its prompt fails a check.", openapi.TypeOf[errorBody](), openapi.ProvenanceHeaders()...),
		},
		Shared: []int{400, 500, 503}, Labelled: true}
}
