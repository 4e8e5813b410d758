package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The tests run on fixture.Shop, a library of their own (see scope_test.go
// for its fields), so that no change to the shipped library's wording
// breaks them.

const (
	shopMain     = "templates/shop/main.md.tmpl"
	shopItem     = "templates/shop/_item.tmpl"
	shopManifest = "templates/shop/prompt.yaml"
	shopExample  = "templates/shop/examples/small.yaml"
	shopSchema   = "schemas/shop.schema.json"
)

func TestLspDiagnosticsFollowTheBuffer(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	c.diagnostics(shopMain, none)

	// a misspelt field, typed and unsaved: underlined with the closest name
	d := c.mistake(shopMain, "# {{ .title }}", "# {{ .title }} {{ .owner.nmae }}", "nmae", `"name"`)
	text := c.text(shopMain)
	want := position(text, strings.Index(text, "nmae"))
	if d.Range.Start != want || d.Range.End.Character != want.Character+4 {
		t.Errorf("range %+v, want the field at %+v: %s", d.Range, want, d.Message)
	}
	if d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("severity %v", d.Severity)
	}

	// fixed: the diagnostic goes away
	c.fix(shopMain, "{{ .owner.nmae }}", "{{ .owner.name }}")

	// an action left open: a parse error where it opens
	c.replace(shopMain, "{{ else }}food", "{{ else }food")
	ds := c.diagnostics(shopMain, func(ds []protocol.Diagnostic) bool { return !none(ds) })
	if len(ds) == 0 || ds[0].Range.Start.Line < c.at(shopMain, "{{ else }food").Line {
		t.Errorf("parse error at %+v", ds)
	}
	c.fix(shopMain, "{{ else }food", "{{ else }}food")

	// full sync: the whole text at once
	c.setText(shopMain, "{{ .nothere }}\n")
	c.diagnostics(shopMain, has("nothere"))
}

func TestLspSchemaEditRechecksTemplatesAndExamples(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain, shopExample)
	c.diagnostics(shopMain, none)
	c.diagnostics(shopExample, none)
	c.open(shopSchema)
	c.replace(shopSchema, `"title": {"type": "string"`, `"caption": {"type": "string"`)
	c.diagnostics(shopMain, has("title"))
	c.diagnostics(shopExample, has("title"))
	c.replace(shopSchema, `"caption": {"type": "string"`, `"title": {"type": "string"`)
	c.diagnostics(shopMain, none)
	c.diagnostics(shopExample, none)
}

// TestLspRequiredNameTheSchemaRefuses holds that a required name that
// the object's additionalProperties: false refuses is underlined in the
// schema, at the name, as render lint reports it.
func TestLspRequiredNameTheSchemaRefuses(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopSchema)
	d := c.mistake(shopSchema, `"required": ["heading", "items"]`, `"required": ["heading", "items", "label"]`,
		`"label" is required`, "additionalProperties is false")
	if want := c.at(shopSchema, `"label"`, true); d.Range.Start != want || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic at %+v (severity %v), want an error at %+v: %s", d.Range, d.Severity, want, d.Message)
	}
	c.fix(shopSchema, `"required": ["heading", "items", "label"]`, `"required": ["heading", "items"]`)
}

func TestLspExampleValidatedAtItsKey(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopExample)
	d := c.mistake(shopExample, "  email: ada@", "  emial: ada@", "emial")
	want := c.at(shopExample, "emial", true)
	if d.Range.Start.Line != want.Line {
		t.Errorf("diagnostic at %+v, want line %d: %s", d.Range, want.Line, d.Message)
	}
	c.fix(shopExample, "  emial: ada@", "  email: ada@")
}

func TestLspManifestErrorAtItsLine(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopManifest)
	if d := c.mistake(shopManifest, "join: ", "jion: ", "jion"); d.Range.Start != c.at(shopManifest, "jion", true) {
		t.Errorf("diagnostic at %+v, want %+v: %s", d.Range, c.at(shopManifest, "jion", true), d.Message)
	}
	c.fix(shopManifest, "jion: ", "join: ")
}

func TestLspFailedCheckOnTheSectionTemplate(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	c.replace(shopMain, "## Stock", "## Stok")
	ds := c.diagnostics(shopMain, has("headings", "## Stock"))
	if d := find(ds, "headings"); d.Range.Start.Line != c.at(shopMain, "## Stok", true).Line {
		t.Errorf("check placed at %+v: %s", d.Range, d.Message)
	}
	c.fix(shopMain, "## Stok", "## Stock")
}

func TestLspCompletion(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)

	c.replace(shopMain, "# {{ .title }}", "# {{ .title }} {{ .owner. }}")
	got := c.complete(shopMain, c.at(shopMain, "{{ .owner."))
	for _, want := range personFields {
		if !slices.Contains(got, want) {
			t.Errorf(".owner. completes %v, missing %s", got, want)
		}
	}
	// inside range, the dot is an item
	got = c.complete(shopMain, c.at(shopMain, "\n- {{ ."))
	if !slices.Contains(got, "price") || !slices.Contains(got, "sku") || slices.Contains(got, "owner") {
		t.Errorf("the dot in range completes %v", got)
	}
	// $. is the input whatever the dot
	c.replace(shopMain, "{{ .price }}", "{{ $.a }}")
	got = c.complete(shopMain, c.at(shopMain, "{{ $."))
	if !slices.Contains(got, "title") || !slices.Contains(got, "items") || !slices.Contains(got, "catalog_id") || slices.Contains(got, "sku") {
		t.Errorf("$. completes %v", got)
	}
	// functions from the catalog
	c.replace(shopMain, "{{ with .owner }}", "{{ with tri .owner }}")
	got = c.complete(shopMain, c.at(shopMain, "{{ with tri"))
	if !slices.Contains(got, "trim") || !slices.Contains(got, "whereNot") || !slices.Contains(got, "sortBy") {
		t.Errorf("functions: %d, no trim/whereNot/sortBy", len(got))
	}
	// partials and defines inside template "..."
	c.replace(shopMain, `{{ template "person"`, `{{ template "pe"`)
	got = c.complete(shopMain, c.at(shopMain, `{{ template "pe`))
	if !slices.Contains(got, "_item.tmpl") || !slices.Contains(got, "person") {
		t.Errorf(`template "pe" completes %v`, got)
	}
	c.replace(shopMain, `{{ template "_item.tmpl"`, `{{ template "_it`)
	got = c.complete(shopMain, c.at(shopMain, `{{ template "_it`))
	if !slices.Contains(got, "_item.tmpl") {
		t.Errorf(`template "_it completes %v`, got)
	}
}

func TestLspCompletionInExamplesAndManifests(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopExample)
	c.replace(shopExample, "  email: ada@example.com\n", "  email: ada@example.com\n  na\n")
	got := c.complete(shopExample, c.at(shopExample, "ada@example.com\n  na"))
	if !slices.Contains(got, "name") || !slices.Contains(got, "email") || slices.Contains(got, "title") {
		t.Errorf("owner keys: %v", got)
	}
	c.replace(shopExample, "  na\n", "")
	c.replace(shopExample, "    kind: tool\n", "    kind: \n")
	got = c.complete(shopExample, c.at(shopExample, "    kind: "))
	if !slices.Contains(got, `"tool"`) || !slices.Contains(got, `"food"`) {
		t.Errorf("kinds: %v", got)
	}
	c.open(shopManifest)
	c.replace(shopManifest, "join: \"\\n\"\n", "join: \"\\n\"\nver\n")
	got = c.complete(shopManifest, c.at(shopManifest, "\nver"))
	for _, want := range []string{"verbatim", "checks", "ids", "budget", "cache"} {
		if !slices.Contains(got, want) {
			t.Errorf("manifest keys %v, missing %s", got, want)
		}
	}
	// Inside cache:, its own keys, from the manifest's schema.
	c.replace(shopManifest, "join: \"\\n\"\nver\n", "join: \"\\n\"\ncache:\n  vo\n")
	got = c.complete(shopManifest, c.at(shopManifest, "\n  vo"))
	if !slices.Contains(got, "volatile") || !slices.Contains(got, "breakpoints") || slices.Contains(got, "sections") {
		t.Errorf("cache keys: %v", got)
	}
}

func TestLspHover(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	h := c.hover(shopMain, c.at(shopMain, "{{ .owner.na"))
	if !strings.Contains(h, "**name**") || !strings.Contains(h, "full name") || !strings.Contains(h, "required") {
		t.Errorf("hover on .owner.name: %q", h)
	}
	h = c.hover(shopMain, c.at(shopMain, "{{ .catalog"))
	if !strings.Contains(h, "added by the engine") {
		t.Errorf("hover on an id: %q", h)
	}
	h = c.hover(shopMain, c.at(shopMain, "{{ range ta"))
	if !strings.Contains(h, "take") || !strings.Contains(h, "Example") {
		t.Errorf("hover on take: %q", h)
	}
	h = c.hover(shopMain, c.at(shopMain, "{{ if eq .ki"))
	if !strings.Contains(h, "One of:") || !strings.Contains(h, `"tool"`) {
		t.Errorf("hover on .kind in range: %q", h)
	}
}

func TestLspDefinition(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	locs := c.definition(shopMain, c.at(shopMain, "{{ .owner.na"))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), shopSchema) {
		t.Fatalf("definition of .owner.name: %+v", locs)
	}
	line := strings.Split(fixture.ShopFiles()[shopSchema], "\n")[locs[0].Range.Start.Line]
	if !strings.Contains(line, `"name"`) || !strings.Contains(line, "full name") {
		t.Errorf("definition lands on %q", line)
	}
	locs = c.definition(shopMain, c.at(shopMain, `template "_ite`))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), "templates/shop/_item.tmpl") {
		t.Errorf("definition of the partial: %+v", locs)
	}
	locs = c.definition(shopMain, c.at(shopMain, `template "pers`))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), shopMain) || locs[0].Range.Start != c.at(shopMain, `{{ define "person"`, true) {
		t.Errorf("definition of the define: %+v", locs)
	}
	c.open(shopManifest)
	locs = c.definition(shopManifest, c.at(shopManifest, "sections: [ma"))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), shopMain) {
		t.Errorf("definition of the section: %+v", locs)
	}
}

func TestLspSymbols(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	syms := c.symbols(shopMain)
	if len(syms) != 1 || syms[0].Name != "section main" {
		t.Fatalf("symbols %+v", syms)
	}
	var names []string
	for _, s := range syms[0].Children {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "## Stock") {
		t.Errorf("headings %v", names)
	}
	c.open(shopManifest)
	syms = c.symbols(shopManifest)
	if len(syms) < 1 || syms[0].Name != "main" {
		t.Errorf("manifest symbols %+v", syms)
	}
}

func TestLspExampleKeys(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopExample)
	h := c.hover(shopExample, c.at(shopExample, "  emai"))
	if !strings.Contains(h, "**email**") || !strings.Contains(h, "Where to write") {
		t.Errorf("hover on an example's key: %q", h)
	}
	locs := c.definition(shopExample, c.at(shopExample, "    pri"))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), shopSchema) {
		t.Fatalf("definition of an example's key: %+v", locs)
	}
	if line := strings.Split(fixture.ShopFiles()[shopSchema], "\n")[locs[0].Range.Start.Line]; !strings.Contains(line, `"price"`) {
		t.Errorf("definition lands on %q", line)
	}
}

func TestLspUnknownFunction(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	if d := c.mistake(shopMain, "{{ range take 5 .items }}", "{{ range takee 5 .items }}", "takee"); !strings.Contains(d.Message, "did you mean take") {
		t.Errorf("no did-you-mean for an unknown function: %s", d.Message)
	}
}

func TestLspNoLibrary(t *testing.T) {
	t.Parallel()
	c := start(t, t.TempDir())
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: c.uri("templates/x/a.md.tmpl"), Version: 1, Text: "{{ . }}"}})
	if got := c.complete("templates/x/a.md.tmpl", protocol.Position{Character: 3}); len(got) != 0 {
		t.Errorf("completion without a library: %v", got)
	}
	if h := c.hover("templates/x/a.md.tmpl", protocol.Position{Character: 3}); h != "" {
		t.Errorf("hover without a library: %q", h)
	}
}

// TestLspMisspeltFieldInRange is the author's first experience: a field of
// an item misspelt inside a range, underlined with the name it should be,
// as they type.
func TestLspMisspeltFieldInRange(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	c.diagnostics(shopMain, none)
	d := c.mistake(shopMain, "{{ .price }}", "{{ .priec }}", "priec", `"price"`)
	if want := c.at(shopMain, "priec", true); d.Range.Start != want {
		t.Errorf("at %+v, want %+v: %s", d.Range, want, d.Message)
	}
}

func TestLspOneDiagnosticPerMistake(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopMain)
	c.replace(shopMain, "{{ .price }}", "{{ .priec }}")
	ds := c.diagnostics(shopMain, has("priec", `"price"`))
	line := c.at(shopMain, "priec").Line
	for _, d := range ds {
		if d.Range.Start.Line == line && !strings.Contains(d.Message, `did you mean "price"`) {
			t.Errorf("a second diagnostic of the same mistake: %s", d.Message)
		}
	}
}

func TestLspManifestHover(t *testing.T) {
	t.Parallel()
	c := startShop(t, shopManifest)
	if h := c.hover(shopManifest, c.at(shopManifest, "\nsecti")); !strings.HasPrefix(h, "**sections**\n\n") || len(h) < len("**sections**\n\n")+10 {
		t.Errorf("hover on sections: %q", h)
	}
}
