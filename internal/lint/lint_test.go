package lint_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// The input schema of the templates under test: title and items are
// required, admin has a default, style and meta are optional.
const noteSchema = `{
  "type": "object", "additionalProperties": false, "required": ["title", "items"],
  "properties": {
    "title": {"type": "string", "description": "T."},
    "style": {"type": "string", "description": "S."},
    "admin": {"type": "boolean", "default": false, "description": "A."},
    "items": {"type": "array", "description": "I.",
      "items": {"type": "object", "required": ["id"],
        "properties": {"id": {"type": "string", "description": "Id."}, "note": {"type": "string", "description": "N."}}}},
    "meta": {"type": "object", "description": "M.", "properties": {"source": {"type": "string", "description": "Src."}}},
    "extra": {"type": "object", "description": "E."}
  }
}`

// parseNote parses files as the engine parses a variant's templates (one
// set, with the engine's functions), beside noteSchema's root.
func parseNote(t *testing.T, files map[string]string) (*template.Template, *schema.Schema) {
	t.Helper()
	return parseBeside(t, "note", noteSchema, files)
}

// parseBeside parses files as the engine parses a variant's templates,
// beside the schema src, which a library holds as schemas/NAME.schema.json.
func parseBeside(t *testing.T, name, src string, files map[string]string) (*template.Template, *schema.Schema) {
	t.Helper()
	set, err := schema.Load(fstest.MapFS{"schemas/" + name + ".schema.json": {Data: []byte(src)}}, "lib")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := set.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	var tmpl *template.Template
	env := &funcs.Env{Templates: func() *template.Template { return tmpl }}
	tmpl = template.New(name).Option("missingkey=error").Funcs(funcs.Map(env))
	for file, text := range files {
		if _, err := tmpl.New(file).Parse(text); err != nil {
			t.Fatal(err)
		}
	}
	return tmpl, sc
}

// check lints main.md.tmpl, which runs on the whole input, beside a partial
// part.md.tmpl, which runs on what its caller passes, as the engine parses
// them: one set, with the engine's functions.
func check(t *testing.T, main string) []string {
	t.Helper()
	tmpl, sc := parseNote(t, map[string]string{"main.md.tmpl": main, "part.md.tmpl": "{{ .anything }}{{ .at.all }}"})
	var out []string
	for _, f := range lint.Check(lint.Templates{
		Set:      tmpl,
		Dir:      "templates/note",
		Root:     sc.Root(),
		Extra:    []string{"note_id"},
		RootData: func(name string) bool { return name == "main.md.tmpl" },
	}) {
		out = append(out, f.String())
	}
	return out
}

const at = "templates/note/main.md.tmpl:"

func optional(pos, path, object, name string) string {
	return fmt.Sprintf(`%s%s: warning: %s is optional (not required, no default): reading it fails when an input leaves it out; `+
		`guard it with {{ if hasKey %s %q }} or read it with get %s %q`, at, pos, path, object, name, object, name)
}

// TestCheck holds what lint finds in a template: a field the schema does
// not define, wherever the template reads it (the dot, $, a variable, get,
// hasKey, inside with and range, through find and take), with the closest
// name or the names there are; an optional field read without a guard; an
// include or template of a name the set does not hold. What a guard
// protects, what the engine adds (at the top level only), what a partial
// reads and the fields of list items are not findings. A position is
// line:col, the column counted in bytes from 1: for a field, the "." before
// the name at fault, where a render that fails on it says it failed; else
// the start of the node.
func TestCheck(t *testing.T) {
	const fields = "the fields here are: admin, extra, items, meta, style, title, note_id"
	cases := []struct {
		name string
		tmpl string
		want []string
	}{
		{"clean", "{{ .title }}{{ .admin }}{{ range .items }}{{ .id }}{{ end }}", nil},
		{"a misspelt field", "{{ .titel }}",
			[]string{at + `1:4: error: .titel: the schema defines no field "titel" here; did you mean "title"?`}},
		{"the first of several names", "{{ .titel.first }}",
			[]string{at + `1:4: error: .titel: the schema defines no field "titel" here; did you mean "title"?`}},
		{"no name near", "\n\n{{ .zzzzzzzz }}",
			[]string{at + `3:4: error: .zzzzzzzz: the schema defines no field "zzzzzzzz" here; ` + fields}},
		{"in a branch", "{{ if .admin }}\n  {{ .titel }}{{ end }}",
			[]string{at + `2:6: error: .titel: the schema defines no field "titel" here; did you mean "title"?`}},
		{"in an else branch of with", "{{ with .items }}{{ else }}{{ .titel }}{{ end }}",
			[]string{at + `1:31: error: .titel: the schema defines no field "titel" here; did you mean "title"?`}},
		{"the engine's names", "{{ .note_id }}{{ .note_idd }}",
			[]string{at + `1:18: error: .note_idd: the schema defines no field "note_idd" here; did you mean "note_id"?`}},
		{"the engine's names only at the top", "{{ with get . \"meta\" }}{{ .note_id }}{{ end }}",
			[]string{at + `1:27: error: .note_id reads "note_id" from the dot, which inside the {{ with }} of line 1 is .meta (which has no field "note_id"), not the input; inside with/range the dot is the current item; the top-level input is $: write $.note_id`}},
		{"inside range, the dot is an item", "{{ range .items }}{{ .idd }}{{ end }}",
			[]string{at + `1:22: error: .items[].idd: the schema defines no field "idd" here; did you mean "id"?`}},
		{"range variables", "{{ range $i, $x := .items }}{{ $x.idd }}{{ $i.any }}{{ end }}",
			[]string{at + `1:34: error: .items[].idd: the schema defines no field "idd" here; did you mean "id"?`}},
		{"$ inside with", "{{ with .items }}{{ $.titl }}{{ end }}",
			[]string{at + `1:22: error: .titl: the schema defines no field "titl" here; did you mean "title"?`}},
		{"a field of the input inside with", "{{ with get . \"meta\" }}\n{{ .title }}{{ end }}",
			[]string{at + `2:4: error: .title reads "title" from the dot, which inside the {{ with }} of line 1 is .meta (which has no field "title"), not the input; inside with/range the dot is the current item; the top-level input is $: write $.title`}},
		{"a field of the input inside range", "{{ range .items }}{{ .admin }}{{ end }}",
			[]string{at + `1:22: error: .admin reads "admin" from the dot, which inside the {{ range }} of line 1 is .items[] (which has no field "admin"), not the input; inside with/range the dot is the current item; the top-level input is $: write $.admin`}},
		{"a variable holds its place", "{{ $m := get . \"meta\" }}{{ $m.sourc }}",
			[]string{at + `1:30: error: .meta.sourc: the schema defines no field "sourc" here; did you mean "source"?`}},
		{"get and hasKey name fields", "{{ if hasKey . \"stlye\" }}{{ get . \"bdy\" }}{{ end }}", []string{
			at + `1:16: error: .stlye: the schema defines no field "stlye" here; did you mean "style"?`,
			at + `1:35: error: .bdy: the schema defines no field "bdy" here; ` + fields}},
		{"find gives an item", "{{ (find \"id\" \"a\" .items).nte }}",
			[]string{at + `1:26: error: .items[].nte: the schema defines no field "nte" here; did you mean "note"?`}},
		{"take keeps the items", "{{ range take 2 .items }}{{ .idd }}{{ end }}",
			[]string{at + `1:29: error: .items[].idd: the schema defines no field "idd" here; did you mean "id"?`}},
		{"concat of one list keeps its items", "{{ range concat (where \"id\" \"a\" .items) (whereNot \"id\" \"a\" .items) }}{{ .idd }}{{ end }}",
			[]string{at + `1:73: error: .items[].idd: the schema defines no field "idd" here; did you mean "id"?`}},
		{"concat of other lists is not known", "{{ range concat .items (list 1) }}{{ .idd }}{{ end }}", nil},
		{"what a pipe gives is not known", "{{ range .items | take 2 }}{{ .idd }}{{ end }}", nil},
		{"an object that names nothing", "{{ with .extra }}{{ .anything }}{{ end }}",
			[]string{optional("1:9", ".extra", ".", "extra")}},
		{"an optional field", "{{ .style }}", []string{optional("1:4", ".style", ".", "style")}},
		{"an optional field in a condition", "{{ if .style }}x{{ end }}", []string{optional("1:7", ".style", ".", "style")}},
		{"an optional nested field", "{{ if hasKey . \"meta\" }}{{ .meta.source }}{{ end }}",
			[]string{optional("1:33", ".meta.source", ".meta", "source")}},
		{"an optional field, once however often it is read", "{{ if hasKey .meta \"source\" }}{{ end }}",
			[]string{optional("1:14", ".meta", ".", "meta")}},
		{"optional fields of items are the range's to guard", "{{ range .items }}{{ .note }}{{ end }}", nil},
		{"guards", "{{ if hasKey . \"style\" }}{{ .style }}{{ end }}" +
			"{{ with get . \"style\" }}{{ . }}{{ end }}" +
			"{{ $has := hasKey . \"style\" }}{{ if $has }}{{ .style }}{{ end }}" +
			"{{ $no := not (hasKey . \"style\") }}{{ if $no }}x{{ else }}{{ .style }}{{ end }}" +
			"{{ if not (hasKey . \"style\") }}x{{ else }}{{ .style }}{{ end }}" +
			"{{ if and (hasKey . \"style\") (eq .style \"x\") }}y{{ end }}", nil},
		{"an include of a template that is not there", "{{ include \"nope.md.tmpl\" . }}{{ include \"part.md.tmpl\" (get . \"extra\") }}",
			[]string{at + `1:12: error: include "nope.md.tmpl": no such template; the templates are: main.md.tmpl, part.md.tmpl; name one of them, or create templates/note/nope.md.tmpl`}},
		{"a template that is not there", "{{ template \"_x.tmpl\" . }}{{ template \"part.md.tmpl\" (get . \"extra\") }}",
			[]string{at + `1:13: error: no template "_x.tmpl"; the templates are: main.md.tmpl, part.md.tmpl; name one of them, or create templates/note/_x.tmpl`}},
		{"a misspelt template", "{{ template \"prat.md.tmpl\" (get . \"extra\") }}",
			[]string{at + `1:13: error: no template "prat.md.tmpl"; did you mean "part.md.tmpl"?; the templates are: main.md.tmpl, part.md.tmpl; name one of them, or create templates/note/prat.md.tmpl`}},
		{"an include by a computed name is not checked", "{{ include (printf \"%s.md.tmpl\" .title) . }}", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.tmpl); !slices.Equal(got, c.want) {
				t.Errorf("lint says\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestFindingString holds how a finding is written: position, severity,
// message.
func TestFindingString(t *testing.T) {
	cases := []struct {
		f    lint.Finding
		want string
	}{
		{lint.Finding{Position: "a.tmpl:1:2", Severity: lint.Error, Message: "m"}, "a.tmpl:1:2: error: m"},
		{lint.Finding{Position: "b.json:3:4", Severity: lint.Warning, Message: "n"}, "b.json:3:4: warning: n"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if got := c.f.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
		})
	}
}

// TestCheckOrder holds that the findings of a template come in the order of
// their positions in it.
func TestCheckOrder(t *testing.T) {
	cases := []struct {
		name string
		tmpl string
		want []string // positions, in order
	}{
		{"columns", "{{ .a }}         {{ .b }}", []string{"1:4", "1:21"}},
		{"lines", strings.Repeat("\n", 8) + "{{ .a }}\n{{ .b }}", []string{"9:4", "10:4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, f := range check(t, c.tmpl) {
				pos, _, _ := strings.Cut(strings.TrimPrefix(f, at), ": ")
				got = append(got, pos)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("positions %q, want %q", got, c.want)
			}
		})
	}
}

// TestCheckAndGuard holds that a hasKey test joined to others with and
// guards the body of the if it conditions, as a lone hasKey does: the body
// runs only when the field is there.
func TestCheckAndGuard(t *testing.T) {
	cases := []struct{ name, tmpl string }{
		{"and", "{{ if and (hasKey . \"style\") (ne .style \"\") }}{{ .style }}{{ end }}"},
		{"and, the read alone", "{{ if and (hasKey . \"style\") .admin }}{{ .style }}{{ end }}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.tmpl); len(got) != 0 {
				t.Errorf("lint says\n  %s", strings.Join(got, "\n  "))
			}
		})
	}
}

// TestCheckConditionGuards holds what else a condition guards, and what it
// does not: if .a guards the body's .a, as the condition fails first when
// .a is missing (and is warned of there, once); an and guards what each
// operand guards, however nested; an or guards nothing, and in an or only a
// negated hasKey guards the operands after it, which run when it fails.
func TestCheckConditionGuards(t *testing.T) {
	cases := []struct {
		name string
		tmpl string
		want []string
	}{
		{"if .a", "{{ if .style }}{{ .style }}{{ end }}", []string{optional("1:7", ".style", ".", "style")}},
		{"if .a, but not its else", "{{ if .style }}x{{ else }}{{ .style }}{{ end }}",
			[]string{optional("1:7", ".style", ".", "style"), optional("1:30", ".style", ".", "style")}},
		{"a variable's test in an and", "{{ $has := hasKey . \"style\" }}{{ if and $has .admin }}{{ .style }}{{ end }}", nil},
		{"a read before another in an and", "{{ if and .style (ne .style \"x\") }}{{ .style }}{{ end }}",
			[]string{optional("1:11", ".style", ".", "style")}},
		{"a nested and", "{{ if and .admin (and (hasKey . \"meta\") .title) }}{{ .meta }}{{ end }}", nil},
		{"an or guards nothing", "{{ if or (hasKey . \"style\") .admin }}{{ .style }}{{ end }}",
			[]string{optional("1:41", ".style", ".", "style")}},
		{"hasKey before a read in an or", "{{ if or (hasKey . \"style\") (eq .style \"x\") }}y{{ end }}",
			[]string{optional("1:33", ".style", ".", "style")}},
		{"not hasKey before a read in an or", "{{ if or (not (hasKey . \"style\")) (eq .style \"x\") }}y{{ end }}", nil},
		{"a negated and", "{{ if not (and (hasKey . \"style\") .admin) }}{{ .style }}{{ end }}",
			[]string{optional("1:48", ".style", ".", "style")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.tmpl); !slices.Equal(got, c.want) {
				t.Errorf("lint says\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// checkFiles lints a set of template files as the engine parses them:
// main.md.tmpl is a section, on the whole input; the others run on what
// their callers pass. With props, the schema's properties are checked for
// a template that reads them, used naming the fields the manifest reads.
func checkFiles(t *testing.T, files map[string]string, props bool, used ...string) []string {
	t.Helper()
	tmpl, sc := parseNote(t, files)
	lt := lint.Templates{
		Set:      tmpl,
		Dir:      "templates/note",
		Root:     sc.Root(),
		RootData: func(name string) bool { return name == "main.md.tmpl" },
		Section:  func(name string) bool { return name == "main.md.tmpl" },
		Variant:  "note",
		Used:     used,
	}
	if props {
		lt.Properties = sc.Declared()
	}
	var out []string
	for _, f := range lint.Check(lt) {
		if f.Kind != lint.KindLint {
			t.Errorf("%s: kind %q", f, f.Kind)
		}
		out = append(out, f.String())
	}
	return out
}

// unread is the warning of a property no template reads.
func unread(pos, path string) string {
	return "lib/schemas/note.schema.json:" + pos + ": warning: no template of note reads " + path +
		", nor does its manifest: what a caller sends for it changes no prompt; use it, or remove it from the schema"
}

// TestCheckUnreadProperties holds which properties of the schema lint
// finds no template reads: a property is read when a template reads it or
// anything inside it (with the dot, $, a variable, get, index, hasKey,
// through with and range, the field a list function names), or uses
// something it is inside whole (prints it, passes it to a function:
// json, entries, a partial it cannot follow), or when the manifest reads
// it; a partial reads what it reads of what its caller passes. A test of
// size (len, empty) or truth (if, and, or, not) reads only the field itself.
func TestCheckUnreadProperties(t *testing.T) {
	all := []string{
		unread("4:5", ".title"), unread("5:5", ".style"), unread("6:5", ".admin"), unread("7:5", ".items"),
		unread("9:24", ".items[].id"), unread("9:72", ".items[].note"), unread("10:5", ".meta"),
		unread("10:68", ".meta.source"), unread("11:5", ".extra"),
	}
	except := func(read ...string) []string {
		var out []string
		for _, w := range all {
			keep := true
			for _, r := range read {
				if strings.Contains(w, "reads "+r+",") {
					keep = false
				}
			}
			if keep {
				out = append(out, w)
			}
		}
		return out
	}
	cases := []struct {
		name  string
		files map[string]string
		used  []string
		want  []string
	}{
		{"nothing read", map[string]string{"main.md.tmpl": "text"}, nil, all},
		{"fields", map[string]string{"main.md.tmpl": "{{ .title }}{{ .admin }}"}, nil, except(".title", ".admin")},
		{"a field inside reads the fields on its way", map[string]string{"main.md.tmpl": `{{ with get . "meta" }}{{ .source }}{{ end }}`}, nil,
			except(".meta", ".meta.source")},
		{"a test of truth reads only the field", map[string]string{"main.md.tmpl": `{{ if hasKey . "meta" }}x{{ end }}{{ if .admin }}y{{ end }}`}, nil,
			except(".meta", ".admin")},
		{"range reads items by their fields", map[string]string{"main.md.tmpl": "{{ range .items }}{{ .id }}{{ end }}"}, nil,
			except(".items", ".items[].id")},
		{"len reads only the list", map[string]string{"main.md.tmpl": "{{ len .items }}{{ if empty .items }}x{{ end }}"}, nil, except(".items")},
		{"a list function reads the field it names", map[string]string{"main.md.tmpl": `{{ range sortBy "note" .items }}x{{ end }}`}, nil,
			except(".items", ".items[].note")},
		{"printed whole", map[string]string{"main.md.tmpl": "{{ .items }}"}, nil, except(".items", ".items[].id", ".items[].note")},
		{"passed whole", map[string]string{"main.md.tmpl": "{{ json (get . \"meta\") }}{{ .items | toJson }}"}, nil,
			except(".meta", ".meta.source", ".items", ".items[].id", ".items[].note")},
		{"the whole input", map[string]string{"main.md.tmpl": "{{ json . }}"}, nil, nil},
		{"a partial reads what its caller passes", map[string]string{
			"main.md.tmpl": `{{ range .items }}{{ template "_row.tmpl" . }}{{ end }}{{ include "_meta.tmpl" (get . "meta") }}`,
			"_row.tmpl":    "{{ .note }}",
			"_meta.tmpl":   "{{ .source }}",
			"_unused.tmpl": "{{ .title }}"}, nil,
			append(except(".items", ".items[].note", ".meta", ".meta.source"),
				`templates/note/_unused.tmpl:1:1: warning: partial _unused.tmpl is used by no template: nothing includes it ({{ template "_unused.tmpl" . }} or include "_unused.tmpl" .); use it or delete it`)},
		{"an include by a name lint cannot read uses its data whole", map[string]string{"main.md.tmpl": `{{ include .style .items }}`}, nil,
			except(".style", ".items", ".items[].id", ".items[].note")},
		{"the manifest's reads", map[string]string{"main.md.tmpl": "text"}, []string{"/title", "/items/*/id", "/meta"},
			except(".title", ".items", ".items[].id", ".meta", ".meta.source")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := checkFiles(t, c.files, true, c.used...)
			got = slices.DeleteFunc(got, func(s string) bool { return strings.Contains(s, "is optional") })
			if !slices.Equal(got, c.want) {
				t.Errorf("lint says\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestCheckPartials holds when lint finds a partial, a file _name.tmpl,
// that nothing uses: no other file names it with template or include, nor
// a template it defines; a name built with printf names those its format
// matches, and a name lint cannot read any of them.
func TestCheckPartials(t *testing.T) {
	unused := func(file string) string {
		return fmt.Sprintf("templates/note/%s:1:1: warning: partial %s is used by no template: nothing includes it ({{ template %q . }} or include %q .); use it or delete it", file, file, file, file)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"template", map[string]string{"main.md.tmpl": `{{ template "_a.tmpl" . }}`, "_a.tmpl": "a"}, nil},
		{"include", map[string]string{"main.md.tmpl": `{{ include "_a.tmpl" . }}`, "_a.tmpl": "a"}, nil},
		{"unused", map[string]string{"main.md.tmpl": "x", "_a.tmpl": "a", "sub/_b.tmpl": "b", "c.md.tmpl": "not a partial"},
			[]string{unused("_a.tmpl"), unused("sub/_b.tmpl")}},
		{"used by itself alone", map[string]string{"main.md.tmpl": "x", "_a.tmpl": `{{ if false }}{{ template "_a.tmpl" }}{{ end }}`},
			[]string{unused("_a.tmpl")}},
		{"a define it holds", map[string]string{"main.md.tmpl": `{{ template "row" . }}`, "_defs.tmpl": `{{ define "row" }}r{{ end }}`}, nil},
		{"a partial used by a used partial", map[string]string{"main.md.tmpl": `{{ template "_a.tmpl" . }}`, "_a.tmpl": `{{ template "_b.tmpl" . }}`, "_b.tmpl": "b"}, nil},
		{"printf", map[string]string{"main.md.tmpl": `{{ include (printf "_%s.tmpl" "a") . }}`, "_a.tmpl": "a", "_b.tmpl": "b", "x/_c.tmpl": "c"},
			[]string{unused("x/_c.tmpl")}},
		{"printf with a folder", map[string]string{"main.md.tmpl": `{{ include (printf "x/_%s.tmpl" "a") . }}`, "_a.tmpl": "a", "x/_c.tmpl": "c"},
			[]string{unused("_a.tmpl")}},
		{"a name lint cannot read", map[string]string{"main.md.tmpl": `{{ include (print "_" "a.tmpl") . }}`, "_a.tmpl": "a"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := checkFiles(t, c.files, false); !slices.Equal(got, c.want) {
				t.Errorf("lint says\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestCheckFences holds when lint finds a code fence a section's template
// opens and never closes, at the fence's line and column: ``` and ~~~ as
// CommonMark reads them (a closing fence is as long or longer, of the same
// character, with nothing after it), in the text of the template where a
// line of the output starts, through its branches and the partials it
// includes by name.
func TestCheckFences(t *testing.T) {
	open := func(pos, fence string) string {
		return fmt.Sprintf("templates/note/main.md.tmpl:%s: warning: the code fence %s opened here is never closed in main.md.tmpl: the rest of the prompt would be code; close it with a line %s", pos, fence, fence)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"closed", map[string]string{"main.md.tmpl": "# T\n\n```go\ncode\n```\nafter\n"}, nil},
		{"open", map[string]string{"main.md.tmpl": "# T\n\n```go\ncode\n"}, []string{open("3:1", "```")}},
		{"indented, tildes", map[string]string{"main.md.tmpl": "# T\n  ~~~~\ncode\n~~~\n"}, []string{open("2:3", "~~~~")}},
		{"a shorter fence does not close", map[string]string{"main.md.tmpl": "````\n```\n"}, []string{open("1:1", "````")}},
		{"a fence with a language does not close", map[string]string{"main.md.tmpl": "```\n```go\n"}, []string{open("1:1", "```")}},
		{"a longer fence closes", map[string]string{"main.md.tmpl": "```\n`````\n"}, nil},
		{"backticks in a line are not a fence", map[string]string{"main.md.tmpl": "run ```x``` now\n``not\n"}, nil},
		{"after an action on its line, not a fence", map[string]string{"main.md.tmpl": "{{ .title }}```\n"}, nil},
		{"after a control action, a fence", map[string]string{"main.md.tmpl": "{{ if .admin }}\n```\n{{ end }}\n"}, []string{open("2:1", "```")}},
		{"each branch opens, one close after", map[string]string{"main.md.tmpl": "{{ if .admin }}\n```json\n{{ else }}\n```yaml\n{{ end }}\n{{ .title }}\n```\n"}, nil},
		{"one branch opens and closes", map[string]string{"main.md.tmpl": "{{ if .admin }}\n```\nx\n```\n{{ end }}\n"}, nil},
		{"a body in a range", map[string]string{"main.md.tmpl": "{{ range .items }}\n```\n{{ .id }}\n```\n{{ end }}\n"}, nil},
		{"closed by a partial", map[string]string{"main.md.tmpl": "```\ncode\n{{ template \"_close.tmpl\" }}after\n", "_close.tmpl": "```\n"}, nil},
		{"closed by an include", map[string]string{"main.md.tmpl": "```\ncode\n{{ include \"_close.tmpl\" . }}after\n", "_close.tmpl": "```\n"}, nil},
		{"a fence built by an action is not read", map[string]string{"main.md.tmpl": "{{ $f := fence .title }}{{ $f }}\n{{ .title }}\n{{ $f }}\n"}, nil},
		{"a partial alone is not checked", map[string]string{"main.md.tmpl": "x", "part.md.tmpl": "```\n"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := checkFiles(t, c.files, false)
			got = slices.DeleteFunc(got, func(s string) bool { return !strings.Contains(s, "code fence") })
			if !slices.Equal(got, c.want) {
				t.Errorf("lint says\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}
