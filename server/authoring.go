package server

import (
	_ "embed"
	"net/http"
	"reflect"

	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// The authoring tools serve the preview page an author keeps open beside
// the library: the page itself (here), what render lint finds
// (authoring_lint.go), the diff against a golden file
// (authoring_golden.go) and the events of a library being edited
// (authoring_events.go). The page renders with the runtime API too.

//go:embed preview.html
var previewPage []byte

// page answers GET /: the preview page.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(previewPage)
}

func pageOp() openapi.Operation {
	return openapi.Operation{Summary: "The preview page for authors",
		Replies: []openapi.Reply{{Code: 200, Description: "An HTML page built on the calls above.", Media: "text/html", Body: openapi.Text()}}}
}

// authoringComponents names the authoring tools' types in
// components.schemas.
func authoringComponents() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[lintReport]():    "LintReport",
		reflect.TypeFor[lint.Finding]():  "Finding",
		reflect.TypeFor[goldenReport]():  "GoldenReport",
		reflect.TypeFor[libraryStatus](): "LibraryStatus",
	}
}

// authoringDescriptions document the authoring tools' types in the OpenAPI
// document.
func authoringDescriptions() map[string]string {
	return map[string]string{
		"LintReport":                   "What render lint finds in a variant.",
		"LintReport.variant":           "The variant linted.",
		"LintReport.findings":          "Each finding, as render lint --format json lists them; none when the variant is clean.",
		"Finding":                      "One thing lint found.",
		"Finding.position":             "file:line:col in the library (\"templates/space/goals.md.tmpl:3:9\"), never a path on the server's disk.",
		"Finding.severity":             "error fails render lint; warning does not.",
		"Finding.message":              "What is wrong, and the fix when there is one.",
		"GoldenReport":                 "An example's prompt as the server renders it now, beside its golden file.",
		"GoldenReport.variant":         "The variant rendered.",
		"GoldenReport.example":         "The example rendered.",
		"GoldenReport.file":            "The golden file, relative to the working copy: testdata/golden/<variant>/<example>.md, or <example>.<max_tokens>-tokens.md for a budget_examples entry.",
		"GoldenReport.status":          "ok (the prompt is the golden file), differs (diff shows how) or missing (no golden file yet: render test --update writes it).",
		"GoldenReport.golden":          "The golden file's content; empty when it is missing.",
		"GoldenReport.rendered":        "The prompt rendered now.",
		"GoldenReport.diff":            "A unified diff from the golden file to the prompt; empty unless status is differs.",
		"GoldenReport.stale":           openapi.StaleMember,
		"LibraryStatus":                "The data of an event of GET /v1/events: the library served now, and whether the working copy loads.",
		"LibraryStatus.library":        "The short hash (12 hex digits) of the library served.",
		"LibraryStatus.ok":             "Whether every variant of the working copy, as it is now, loads.",
		"LibraryStatus.stale":          "The last reload failed altogether (error says why): everything served is the last library that loaded, and every answer carries X-Promptsmith-Stale.",
		"LibraryStatus.stale_variants": "The variants served from their last good version because they do not load (error says why): their answers carry X-Promptsmith-Stale.",
		"LibraryStatus.error":          "Why the working copy does not load: the reload that failed, or the variants that do not load (each in also), which are served from their last good version (GET /v1/variants says which).",
	}
}
