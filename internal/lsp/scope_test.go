package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// The dot wherever a template may move it: each case is a template's text
// with the cursor at ‸, what completion there must offer and what it must
// not. The library is fixture.Shop: an item has sku, name, price, kind,
// tags (each a label) and a maker (a person: name, email); the input has
// title, owner, items, aisles (heading, items) and stock (a map of counts).

const cursor = "‸"

var (
	itemFields   = []string{"sku", "name", "price", "kind", "tags", "maker"}
	rootFields   = []string{"title", "owner", "items", "aisles", "stock"}
	personFields = []string{"name", "email"}
)

type scopeCase struct {
	name    string
	file    string // shopMain when empty
	text    string
	want    []string
	notWant []string
}

var scopeCases = []scopeCase{
	{name: "range over a field", text: "{{ range .items }}{{ .‸ }}{{ end }}", want: itemFields, notWant: []string{"title"}},
	{name: "range, half typed", text: "{{ range .items }}\n- {{ .‸", want: itemFields, notWant: []string{"title"}},
	{name: "range, the action half typed before the end", text: "{{ range .items }}\n- {{ .‸\n{{ end }}\n", want: itemFields},
	{name: "range, a field being typed", text: "{{ range .items }}{{ .pr‸ }}{{ end }}", want: itemFields},
	{name: "range with a variable: the variable", text: "{{ range $e := .items }}{{ $e.‸ }}{{ end }}", want: itemFields, notWant: []string{"title"}},
	{name: "range with a variable: the dot", text: "{{ range $e := .items }}{{ .‸ }}{{ end }}", want: itemFields},
	{name: "range with two variables", text: "{{ range $i, $e := .items }}{{ $e.‸ }}{{ end }}", want: itemFields},
	{name: "range over take", text: "{{ range take 5 .items }}{{ .‸ }}{{ end }}", want: itemFields},
	{name: "range over sortBy", text: "{{ range sortBy \"price\" .items }}{{ .‸", want: itemFields},
	{name: "range over where", text: "{{ range where \"kind\" \"tool\" .items }}{{ .‸", want: itemFields},
	{name: "range over default", text: "{{ range default (list) .items }}{{ .‸", want: itemFields},
	{name: "range over a parenthesised pipeline", text: "{{ range (take 2 .items) }}{{ .‸", want: itemFields},
	{name: "range over a piped take", text: "{{ range .items | take 3 }}{{ .‸", want: itemFields},
	{name: "range over a variable", text: "{{ $some := take 2 .items }}{{ range $some }}{{ .‸", want: itemFields},
	{name: "a list built with append", text: "{{ $l := list }}{{ range .items }}{{ $l = append $l . }}{{ end }}{{ range $l }}{{ .‸", want: itemFields, notWant: []string{"title"}},
	{name: "a list appended to in a branch, ranged in with", text: "{{ $l := list -}}\n{{ range .items }}{{ if .price }}{{ $l = append $l . }}{{ end }}{{ end -}}\n{{ with $l }}\n{{ range . }}\n- {{ .‸ }}\n{{ end }}{{ end }}", want: itemFields, notWant: []string{"title"}},
	{name: "a list of one value", text: "{{ range list .owner }}{{ .‸", want: personFields},
	{name: "range over entries", text: "{{ range entries .stock }}{{ .‸", want: []string{"key", "value"}, notWant: []string{"count"}},
	{name: "an entry's value", text: "{{ range entries .stock }}{{ .value.‸", want: []string{"count"}},
	{name: "range over values", text: "{{ range values .stock }}{{ .‸", want: []string{"count"}},
	{name: "with", text: "{{ with .owner }}{{ .‸ }}{{ end }}", want: personFields, notWant: []string{"title", "sku"}},
	{name: "range's pipeline inside with", text: "{{ with .owner }}{{ range .‸", want: personFields, notWant: []string{"title"}},
	{name: "range over $ inside with", text: "{{ with .owner }}{{ range $.items }}{{ .‸", want: itemFields},
	{name: "else of range", text: "{{ range .items }}{{ .sku }}{{ else }}{{ .‸ }}{{ end }}", want: rootFields, notWant: []string{"sku"}},
	{name: "else of with", text: "{{ with .owner }}{{ .name }}{{ else }}{{ .‸", want: rootFields},
	{name: "else with", text: "{{ with .nothing }}{{ else with .owner }}{{ .‸", want: personFields},
	{name: "after the end of range", text: "{{ range .items }}{{ .sku }}{{ end }}{{ .‸", want: rootFields, notWant: []string{"sku"}},
	{name: "nested range", text: "{{ range .aisles }}{{ range .items }}{{ .‸", want: itemFields, notWant: []string{"heading"}},
	{name: "outer range of nested ones", text: "{{ range .aisles }}{{ .‸ }}{{ range .items }}{{ end }}{{ end }}", want: []string{"heading", "items"}},
	{name: "range over an item's list", text: "{{ range .items }}{{ range .tags }}{{ .‸", want: []string{"label"}},
	{name: "range over a variable's field", text: "{{ range $e := .items }}{{ range $e.tags }}{{ .‸", want: []string{"label"}},
	{name: "a field of the item", text: "{{ range .items }}{{ .maker.‸", want: personFields},
	{name: "a variable's field's field", text: "{{ range $e := .items }}{{ $e.maker.‸", want: personFields},
	{name: "$ inside range", text: "{{ range .items }}{{ $.‸", want: rootFields, notWant: []string{"sku"}},
	{name: "range over a map with variables", text: "{{ range $sku, $l := .stock }}{{ $l.‸", want: []string{"count"}},
	{name: "range over a map", text: "{{ range .stock }}{{ .‸", want: []string{"count"}},
	{name: "with a variable", text: "{{ with $o := .owner }}{{ $o.‸", want: personFields},
	{name: "a define called with a known value", text: "{{ template \"person\" .owner }}\n{{ define \"person\" }}{{ .‸ }}{{ end }}", want: personFields, notWant: []string{"title"}},
	{name: "$ in a define", text: "{{ template \"person\" .owner }}\n{{ define \"person\" }}{{ $.‸ }}{{ end }}", want: personFields, notWant: []string{"title"}},
	{name: "a define called with include from a range", text: "{{ range .items }}{{ include \"person\" .maker }}{{ end }}\n{{ define \"person\" }}{{ .‸", want: personFields},
	{name: "range inside a define", text: "{{ template \"rows\" .aisles }}\n{{ define \"rows\" }}{{ range . }}{{ .‸ }}{{ end }}{{ end }}", want: []string{"heading", "items"}},
	{name: "a partial file called from range", file: shopItem, text: "* {{ .‸ }}\n", want: itemFields, notWant: []string{"title"}},
}

// open puts text into a library file's buffer (opened once) and returns
// the position of the cursor mark in it.
func (c *client) cursorIn(p, text string, opened map[string]bool) protocol.Position {
	c.t.Helper()
	off := strings.Index(text, cursor)
	if off < 0 {
		c.t.Fatalf("no cursor in %q", text)
	}
	text = strings.Replace(text, cursor, "", 1)
	if p != shopMain && opened[shopMain] { // the section as it was: it calls the partials
		c.setText(shopMain, fixture.ShopMain)
	}
	if opened[p] {
		c.setText(p, text)
	} else {
		c.open(p, text)
		opened[p] = true
	}
	return position(text, off)
}

func TestLspCompletionFollowsTheDot(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	opened := map[string]bool{}
	for _, tc := range scopeCases {
		file := tc.file
		if file == "" {
			file = shopMain
		}
		got := c.complete(file, c.cursorIn(file, tc.text, opened))
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: %q completes %v, without %s", tc.name, tc.text, got, w)
			}
		}
		for _, w := range tc.notWant {
			if slices.Contains(got, w) {
				t.Errorf("%s: %q completes %v, with %s", tc.name, tc.text, got, w)
			}
		}
	}
}

func TestLspHoverAndDefinitionFollowTheDot(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	schema := strings.Split(fixture.ShopFiles()["schemas/shop.schema.json"], "\n")
	opened := map[string]bool{}
	for _, tc := range []struct {
		name, file, text string
		hover            string // what the hover says
		line             string // what the line the definition lands on holds
	}{
		{"range", shopMain, "{{ range .items }}{{ .pr‸ice }}{{ end }}", "In cents", `"price"`},
		{"range, half typed", shopMain, "{{ range .items }}{{ .pr‸ice", "In cents", `"price"`},
		{"a range variable", shopMain, "{{ range $e := .items }}{{ $e.sk‸u }}{{ end }}", "stock-keeping unit", `"sku"`},
		{"two range variables", shopMain, "{{ range $i, $e := .items }}{{ $e.sk‸u }}{{ end }}", "stock-keeping unit", `"sku"`},
		{"range over take", shopMain, "{{ range take 5 .items }}{{ .na‸me }}{{ end }}", "item's label", `"name": {"type": "string", "description": "The item's label."}`},
		{"with", shopMain, "{{ with .owner }}{{ .na‸me }}{{ end }}", "full name", `"The person's full name."`},
		{"nested range", shopMain, "{{ range .aisles }}{{ range .items }}{{ .ki‸nd }}{{ end }}{{ end }}", "What it is", `"kind"`},
		{"a field of an item", shopMain, "{{ range .items }}{{ .maker.em‸ail }}{{ end }}", "Where to write", `"email"`},
		{"$ in range", shopMain, "{{ range .items }}{{ $.tit‸le }}{{ end }}", "shop's name", `"title"`},
		{"a define", shopMain, "{{ template \"person\" .owner }}{{ define \"person\" }}{{ .em‸ail }}{{ end }}", "Where to write", `"email"`},
		{"a partial", shopItem, "* {{ .pri‸ce }}\n", "In cents", `"price"`},
	} {
		pos := c.cursorIn(tc.file, tc.text, opened)
		if h := c.hover(tc.file, pos); !strings.Contains(h, tc.hover) {
			t.Errorf("%s: hover on %q: %q, want %q", tc.name, tc.text, h, tc.hover)
		}
		locs := c.definition(tc.file, pos)
		if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), "/schemas/shop.schema.json") || int(locs[0].Range.Start.Line) >= len(schema) {
			t.Errorf("%s: definition from %q: %+v", tc.name, tc.text, locs)
			continue
		}
		if l := schema[locs[0].Range.Start.Line]; !strings.Contains(l, tc.line) {
			t.Errorf("%s: definition from %q lands on %q, want %q", tc.name, tc.text, l, tc.line)
		}
	}
}

func TestLspCompletionInJSONExamples(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	ex := "templates/shop/examples/empty.json"
	opened := map[string]bool{}
	for _, tc := range []struct {
		name, text string
		want       []string
		edit       string // the text the first item puts in, when set
	}{
		{"top level", "{\n  \"‸", rootFields, `"title": `},
		{"top level, the closing quote typed", "{\n  \"ti‸\"\n}\n", rootFields, `"title": `},
		{"top level, a colon after", "{\n  \"ti‸\": 1\n}\n", rootFields, `"title"`},
		{"after a value", "{\n  \"title\": \"x\",\n  ‸", rootFields, `"title": `},
		{"an object", "{\n  \"title\": \"x\",\n  \"owner\": {\"‸", personFields, ""},
		{"an item of a list", "{\"items\": [{\"sku\": \"a\"}, {\"‸", itemFields, ""},
		{"a list inside an item", "{\"items\": [{\"tags\": [{\"‸", []string{"label"}, ""},
		{"a map's value", "{\"stock\": {\"H-1\": {\"‸", []string{"count"}, ""},
		{"an enum value", "{\"items\": [{\"kind\": ‸", []string{`"tool"`, `"food"`}, ""},
		{"an enum value, quoted", "{\"items\": [{\"kind\": \"to‸\"}]}", []string{`"tool"`, `"food"`}, `"tool"`},
	} {
		pos := c.cursorIn(ex, tc.text, opened)
		list := c.completion(ex, pos)
		got := labels(list)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: %q completes %v, without %s", tc.name, tc.text, got, w)
			}
		}
		if tc.edit != "" && len(list.Items) > 0 {
			if e := list.Items[0].TextEdit; e == nil || e.NewText != tc.edit {
				t.Errorf("%s: %q: the first item's edit is %+v, want %q", tc.name, tc.text, e, tc.edit)
			}
		}
	}
}

// TestLspDefineCalledFromEverywhere: a define that calls itself from many
// places is followed through a bounded number of its callers, so that
// completion inside it still answers.
func TestLspDefineCalledFromEverywhere(t *testing.T) {
	t.Parallel()
	c := startShop(t)
	calls := strings.Repeat("{{ template \"r\" . }}{{ include \"r\" .items }}\n", 300)
	text := "{{ define \"r\" }}" + calls + "{{ .‸ }}{{ end }}\n{{ template \"r\" .owner }}\n"
	got := c.complete(shopMain, c.cursorIn(shopMain, text, map[string]bool{}))
	if slices.Contains(got, "title") {
		t.Errorf("the define's dot completes the input's fields: %v", got)
	}
}

// TestLspJSONExampleKeys: hover and definition on a key of a JSON example,
// as on a YAML one's.
func TestLspJSONExampleKeys(t *testing.T) {
	c := startShop(t)
	ex := "templates/shop/examples/empty.json"
	c.open(ex)
	if h := c.hover(ex, c.at(ex, `{"na`)); !strings.Contains(h, "**name**") || !strings.Contains(h, "full name") {
		t.Errorf("hover on owner.name: %q", h)
	}
	locs := c.definition(ex, c.at(ex, `"tit`))
	if len(locs) != 1 || !strings.HasSuffix(string(locs[0].URI), shopSchema) {
		t.Fatalf("definition of title: %+v", locs)
	}
	if line := strings.Split(fixture.ShopFiles()[shopSchema], "\n")[locs[0].Range.Start.Line]; !strings.Contains(line, `"title"`) {
		t.Errorf("definition lands on %q", line)
	}
}

// TestLspEntries: inside range entries, key and value are explained; they
// stand in no schema file, so there is nowhere to jump to.
func TestLspEntries(t *testing.T) {
	c := startShop(t)
	pos := c.cursorIn(shopMain, "{{ range entries .stock }}{{ .ke‸y }}{{ end }}", map[string]bool{})
	if h := c.hover(shopMain, pos); !strings.Contains(h, "**key** `string`") {
		t.Errorf("hover on .key: %q", h)
	}
	if locs := c.definition(shopMain, pos); len(locs) != 0 {
		t.Errorf("definition of .key: %+v", locs)
	}
}
