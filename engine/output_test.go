package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/promptsmith/promptsmith/internal/testing/alloc"
)

// TestFieldPrintsAsBefore: an action rewritten to write a verbatim field
// itself prints what text/template printed, whatever the value it meets
// (the same field path names other values under another dot).
func TestFieldPrintsAsBefore(t *testing.T) {
	t.Parallel()
	const src = `{{ .body }}|{{ range .items }}{{ .body }};{{ end }}|{{ with .nested }}{{ .body }}{{ end }}|{{ if true }}{{ .body }}{{ end }}`
	var data map[string]any
	err := json.Unmarshal([]byte(`{"body": "text <&> \u00e9", "items": [{"body": 5}, {"body": null}, {"body": true}, {"body": [1, "a"]}, {"body": {"k": "v"}}, {"body": 1.5e300}], "nested": {"body": ""}}`), &data)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	plain := template.Must(template.New("t").Option("missingkey=error").Parse(src))
	if err := plain.Execute(&want, data); err != nil {
		t.Fatal(err)
	}

	var out strings.Builder
	direct := template.Must(template.New("t").Option("missingkey=error").Funcs(template.FuncMap{"write": func(v any) any {
		if s, ok := v.(string); ok {
			out.WriteString(s)
			return ""
		}
		return v
	}}).Parse(src))
	if err := callOnPrint(direct, [][]string{{"body"}}, "write"); err != nil {
		t.Fatal(err)
	}
	if err := direct.Execute(&out, data); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Errorf("rewritten: %q\nplain:     %q", out.String(), want.String())
	}
	if !strings.Contains(direct.Tree.Root.String(), "write .body") || strings.Contains(plain.Tree.Root.String(), "write") {
		t.Errorf("the rewrite reached the wrong tree: %s / %s", direct.Tree.Root, plain.Tree.Root)
	}

	err1 := plain.Execute(&strings.Builder{}, map[string]any{})
	err2 := direct.Execute(&strings.Builder{}, map[string]any{})
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("a missing field: rewritten %v, plain %v", err2, err1)
	}
}

// TestLargeFieldIsWrittenOnce: a large verbatim field costs the decoded
// string and the output it is written into, not fmt's copy of it or a
// buffer grown by doubling; and it still counts against the output limit.
func TestLargeFieldIsWrittenOnce(t *testing.T) {
	big := func(f fstest.MapFS) {
		m := string(f["templates/note/prompt.yaml"].Data)
		m = strings.Replace(m, "max_bytes: 20}", "max_bytes: 16777216}", 1)
		m = strings.Replace(m, "max_bytes: 400", "max_bytes: 16777216", 1)
		f["templates/note/prompt.yaml"] = &fstest.MapFile{Data: []byte(m)}
	}
	lib := mustLoadNote(t, big)
	body := strings.Repeat("a line of the parent's prompt, long enough to matter\n", 40000) // 2 MB
	in, _ := json.Marshal(map[string]any{"title": "T", "body": body})
	render := func() *Result {
		res, err := lib.Render(context.Background(), "note", Input{Name: "in.json", Data: in})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	render() // the first render sizes the output for the next
	var res *Result
	used := alloc.Bytes(func() { res = render() })
	if !strings.Contains(res.Text, "<<<\n"+body+"\n>>>") {
		t.Fatal("the field is not in the prompt as it is")
	}
	// decoded string + output = 2 × the field; fmt's copy and the buffer's
	// growth would add about two more.
	if got, limit := used, uint64(len(body)*5/2); got > limit {
		t.Errorf("a render with a %d-byte field allocated %d bytes, over %d", len(body), got, limit)
	}

	fsys := noteFS()
	big(fsys)
	small, err := LoadStrict(fsys, WithLimits(Limits{OutputBytes: len(body) / 2}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = small.Render(context.Background(), "note", Input{Name: "in.json", Data: in})
	if !errors.Is(err, errOutputLimit) {
		t.Errorf("a field over the output limit: %v", err)
	}
}

// TestFieldWrittenWhereItIsPrinted: an action printing a verbatim field
// writes it where it stands, also inside include (which writes into a text
// of its own) and in a check's when: condition (which runs after the
// output is done).
func TestFieldWrittenWhereItIsPrinted(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, func(f fstest.MapFS) {
		f["templates/note/styles/quoted.md.tmpl"] = &fstest.MapFile{Data: []byte("[{{ .body }}]\n")}
		m := string(f["templates/note/prompt.yaml"].Data)
		m = strings.Replace(m, `when: "{{ not .admin }}"`, `when: "{{ .body }}"`, 1)
		f["templates/note/prompt.yaml"] = &fstest.MapFile{Data: []byte(m)}
	})
	for _, body := range []string{"true", "false"} {
		res, err := lib.Render(context.Background(), "note", Input{Name: "in.yaml", Data: []byte("title: T\nstyle: quoted\nbody: \"" + body + "\"\n")})
		if err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		if want := "[" + body + "]\n<<<\n" + body + "\n>>>\n"; !strings.HasSuffix(res.Text, want) {
			t.Errorf("body %s: the prompt ends %q, want %q", body, res.Text[max(0, len(res.Text)-len(want)):], want)
		}
	}
}
