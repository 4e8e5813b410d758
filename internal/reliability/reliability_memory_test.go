package reliability_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/alloc"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// The reliability suite, round two: what an input expands to is bounded in
// bytes, not only in values, an error quotes a bounded part of the input,
// and the deadline covers reading the input as well as the templates.

// minimalDelegation is the delegation example minimal, as YAML.
func minimalDelegation(t *testing.T) string {
	return string(fixture.Example(t, "delegation", "minimal").Data)
}

// 1. A 1.08 MB YAML file whose one 1 MiB string is aliased 9,900 times, within
// the count of aliases allowed, took 24 GB and was killed.
func TestReliabilityAliasesAreBoundedInBytes(t *testing.T) {
	// Not parallel: alloc.Bytes counts what the whole process allocates.
	lib := fixture.Library(t)
	doc := minimalDelegation(t) + "padding: &p " + strings.Repeat("x", 1<<20) + "\nextra:\n" + strings.Repeat("  - *p\n", 9900)
	var err error
	used := alloc.Bytes(func() {
		within(t, time.Minute, "the render of 9,900 aliases of 1 MiB", func() {
			_, err = lib.Render(context.Background(), "delegation", engine.Input{Name: "laughs.yaml", Data: []byte(doc)})
		})
	})
	e := engine.AsError(err)
	if e == nil || e.Kind != engine.KindInput || !strings.Contains(e.Reason, "64 MiB of text through its aliases") ||
		!strings.HasPrefix(e.Field, "/extra/") || e.Position == "" {
		t.Fatalf("got %v, want the bound on the text aliases expand to", err)
	}
	if used > 64<<20 {
		t.Errorf("refusing 1 MB of aliases allocated %d MB", used>>20)
	}
}

// 2. A valid input with one extra key of 5,000,000 characters got a 10 MB
// error; a number of 100,000 digits came back in full.
func TestReliabilityErrorsQuoteLittleOfTheInput(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	good := minimalDelegation(t)
	var asJSON map[string]any
	if err := yaml.Unmarshal([]byte(good), &asJSON); err != nil {
		t.Fatal(err)
	}
	longKey := strings.Repeat("k", 5_000_000)
	cases := map[string]string{
		"a long key":    string(mustJSON(t, merged(asJSON, longKey, 1))),
		"a long number": strings.TrimSuffix(string(mustJSON(t, asJSON)), "}") + `, "n": ` + strings.Repeat("9", 100_000) + "}",
		"a long value of the wrong type": strings.Replace(string(mustJSON(t, asJSON)), `"parent":`,
			`"parent": "`+strings.Repeat("p", 3_000_000)+`", "was":`, 1),
	}
	srv := server.New(lib)
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.json", Data: []byte(body)})
			e := engine.AsError(err)
			if e == nil || e.Kind != engine.KindInput {
				t.Fatalf("got %v, want an input error", err)
			}
			if n := len(err.Error()); n > 20<<10 {
				t.Errorf("the error's text is %d bytes", n)
			}
			for _, s := range append([]string{e.Reason, e.Field}, e.Hints...) {
				if len(s) > 2<<10 {
					t.Errorf("a text of the error is %d bytes: %.80s...", len(s), s)
				}
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/render/delegation", strings.NewReader(body)))
			if rec.Code != 422 || rec.Body.Len() > 16<<10+512 {
				t.Errorf("HTTP %d with a %d-byte body: %.300s", rec.Code, rec.Body.Len(), rec.Body.String())
			}
		})
	}
}

// 4. A 256 KB input of aliases took 3.1 s and 1.39 GB under a 500 ms
// deadline: the deadline now covers decoding and validating the input.
func TestReliabilityDeadlineCoversReadingTheInput(t *testing.T) {
	t.Parallel()
	fsys := promptsmith.FS()
	lib, err := engine.Load(fsys, engine.WithLimits(engine.Limits{Timeout: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	// Three values for each byte: under the bound on values (four a byte),
	// so that only the deadline can stop it, hundreds of times over.
	keys := make([]string, 60)
	for i := range keys {
		keys[i] = "k" + strings.Repeat("x", i%10) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ": v"
	}
	head := "base: &b {" + strings.Join(keys, ", ") + "}\nlevel: &l [" + strings.Repeat("*b, ", 99) + "*b]\nitems:\n"
	item := "  - [" + strings.Repeat("*l, ", 3) + "*l]\n"
	doc := head + strings.Repeat(item, (256<<10-400-len(head)+len(item)-1)/len(item))
	_, err = lib.Render(context.Background(), "delegation", engine.Input{Name: "aliases.yaml", Data: []byte(doc)})
	e := engine.AsError(err)
	if e == nil || e.Kind != engine.KindInput || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(e.Reason, "reading and validating the input took longer than the render's deadline") {
		t.Fatalf("got %v, want the deadline, while the input was read", err)
	}
}

// merged is m with one more key.
func merged(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, val := range m {
		out[key] = val
	}
	return out
}
