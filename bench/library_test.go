package bench

import (
	"bytes"
	"context"
	"io/fs"
	"testing"
	"text/template"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/schema"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"gopkg.in/yaml.v3"
)

// BenchmarkLibrary renders every example of each variant of the embedded
// library: one op renders them all, ns/render is the mean per example.
func BenchmarkLibrary(b *testing.B) {
	lib := fixture.Library(b)
	for _, name := range lib.Names() {
		_, inputs := variantExamples(b, lib, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, in := range inputs {
					if _, err := lib.Render(context.Background(), name, in); err != nil {
						b.Fatalf("%s: %v", in.Name, err)
					}
				}
			}
			b.ReportMetric(float64(len(inputs)), "renders")
			b.ReportMetric(nsPerOp(b)/float64(len(inputs)), "ns/render")
		})
	}
}

// variantExamples is lib's variant name and its examples' inputs, in
// the order it lists them: the corpus the library's benchmarks render.
func variantExamples(tb testing.TB, lib *engine.Library, name string) (*engine.Variant, []engine.Input) {
	tb.Helper()
	v, err := lib.Variant(name)
	if err != nil {
		tb.Fatal(err)
	}
	var inputs []engine.Input
	for _, ex := range v.Examples() {
		in, err := v.Example(ex)
		if err != nil {
			tb.Fatal(err)
		}
		inputs = append(inputs, in)
	}
	return v, inputs
}

// delegationInput is the restricted-tools example with a parent prompt of
// n bytes, as JSON (keys in the example's order). Parents over the
// manifest's 1 MiB default raise the input's own limit.
func delegationInput(tb testing.TB, n int) []byte {
	tb.Helper()
	src, err := fs.ReadFile(promptsmith.FS(), "templates/delegation/examples/restricted-tools.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	order := &input.KeyOrder{}
	doc, err := input.Decode(engine.Input{Name: "restricted-tools.yaml", Data: src}, order)
	if err != nil {
		tb.Fatal(err)
	}
	defer doc.Release()
	doc.Root["parent"].(map[string]any)["prompt"] = fixture.ParentPrompt(n)
	delete(doc.Root["subagent"].(map[string]any), "inherited_policies")
	if n > 1<<20 {
		d := doc.Root["delegation"].(map[string]any)
		d["parent_max_bytes"] = int64(8 << 20)
		doc.AppendKey(d, "parent_max_bytes")
	}
	return input.AppendJSON(nil, doc.Root, order, false)
}

// bare is the floor a variant's pipeline is measured against: its section
// templates, parsed into a plain text/template set with the engine's
// functions, executed on the input as the templates see it (decoded, with
// the schema's defaults and the ids), prepared once outside the timed loop.
// It joins and drops sections as the pipeline does, so that it writes the
// same prompt.
type bare struct {
	tmpl     *template.Template
	sections []string
	join     string
	data     map[string]any
}

func newBare(tb testing.TB, lib *engine.Library, variant string, in engine.Input, res *engine.Result) *bare {
	tb.Helper()
	v, err := lib.Variant(variant)
	if err != nil {
		tb.Fatal(err)
	}
	m := v.Manifest()
	fsys := promptsmith.FS()
	set := fixture.BareTemplates(tb, variant)

	schemas, err := schema.Load(fsys, "")
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := schemas.Get(m.Schema)
	if err != nil || sc == nil {
		tb.Fatalf("schema %s: %v", m.Schema, err)
	}
	doc, err := input.Decode(in, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(doc.Release)
	sc.ApplyDefaults(doc)
	data := doc.Root
	for k, id := range res.IDs {
		data[k] = id
	}
	if len(m.Budget) > 0 {
		omitted := map[string]any{}
		for _, u := range m.Budget {
			if u.Kind() != "section" {
				omitted[u.Name] = 0
			}
		}
		data["budget"] = map[string]any{"omitted": omitted, "max_tokens": 0}
	}
	return &bare{tmpl: set, sections: m.Sections, join: m.JoinText(), data: data}
}

func (br *bare) execute(buf *bytes.Buffer) error {
	buf.Reset()
	kept := 0
	for _, s := range br.sections {
		mark := buf.Len()
		if kept > 0 {
			buf.WriteString(br.join)
		}
		start := buf.Len()
		if err := br.tmpl.ExecuteTemplate(buf, s+".md.tmpl", br.data); err != nil {
			return err
		}
		if len(bytes.TrimSpace(buf.Bytes()[start:])) == 0 {
			buf.Truncate(mark)
			continue
		}
		kept++
	}
	return nil
}

var parentSizes = []struct {
	name string
	size int
}{{"5KiB", 5 << 10}, {"256KiB", 256 << 10}, {"1MiB", 1 << 20}, {"4MiB", 4 << 20}}

// delegationAt is the delegation input with a parent prompt of size bytes,
// the pipeline's render of it, and the bare floor of the same templates
// on it, which the test holds to that render.
func delegationAt(tb testing.TB, lib *engine.Library, size int) (engine.Input, *engine.Result, *bare) {
	tb.Helper()
	in := engine.Input{Name: "bench.json", Data: delegationInput(tb, size)}
	res, err := lib.Render(context.Background(), "delegation", in)
	if err != nil {
		tb.Fatalf("the delegation with a parent of %d bytes: %v", size, err)
	}
	return in, res, newBare(tb, lib, "delegation", in, res)
}

// TestDelegationBareIsThePrompt holds the delegation floor to the prompt
// the pipeline writes, at every parent size the benchmark uses.
func TestDelegationBareIsThePrompt(t *testing.T) {
	lib := fixture.Library(t)
	for _, ps := range parentSizes {
		_, res, br := delegationAt(t, lib, ps.size)
		var buf bytes.Buffer
		if err := br.execute(&buf); err != nil {
			t.Fatalf("%s: %v", ps.name, err)
		}
		if got := buf.String(); got != res.Text {
			at := phrase.CommonPrefixLen(got, res.Text)
			t.Errorf("%s: bare differs from the pipeline at byte %d: %s, want %s", ps.name, at, excerpt(got, at), excerpt(res.Text, at))
		}
	}
}

// BenchmarkDelegation renders a delegation whose parent prompt is 5 KiB,
// 256 KiB, 1 MiB and 4 MiB: the whole pipeline from the input bytes next
// to a bare Execute of the same templates (x-bare; "paired" runs both in
// the same ops). SetBytes is the parent's size, so a constant MB/s across
// sizes is a linear cost.
func BenchmarkDelegation(b *testing.B) {
	lib := fixture.Library(b)
	for _, ps := range parentSizes {
		in, _, br := delegationAt(b, lib, ps.size)
		floor := "delegation/" + ps.name + "/bare"
		b.Run("parent="+ps.name+"/bare", func(b *testing.B) {
			var buf bytes.Buffer
			b.SetBytes(int64(ps.size))
			b.ReportAllocs()
			runOps(b, func() error { return br.execute(&buf) })
			recordFloor(b, floor)
		})
		pipeline := func() error {
			_, err := lib.Render(context.Background(), "delegation", in)
			return err
		}
		b.Run("parent="+ps.name+"/pipeline", func(b *testing.B) {
			b.SetBytes(int64(ps.size))
			b.ReportAllocs()
			runOps(b, pipeline)
			reportRatio(b, floor, "x-bare")
		})
		b.Run("parent="+ps.name+"/paired", func(b *testing.B) {
			var buf bytes.Buffer
			paired(b, pipeline, base{"x-bare", func() error { return br.execute(&buf) }})
		})
	}
}

// formatInputs gives an input as JSON and as YAML, with the same values
// and key order: the peer workload (written as JSON) and the delegation
// example the README shows (written as YAML).
func formatInputs(tb testing.TB) []struct {
	name, variant string
	lib           *engine.Library
	json, yaml    []byte
} {
	tb.Helper()
	p := newPeers(tb)
	lib := fixture.Library(tb)
	delegationYAML, err := fs.ReadFile(promptsmith.FS(), "templates/delegation/examples/revoked-deploy.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return []struct {
		name, variant string
		lib           *engine.Library
		json, yaml    []byte
	}{
		{"peer-workload", workloadVariant, p.lib, p.input, toYAML(tb, p.input)},
		{"delegation", "delegation", lib, toJSON(tb, delegationYAML), delegationYAML},
	}
}

// toYAML writes a JSON document as block-style YAML, keys in their order.
func toYAML(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		tb.Fatal(err)
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		n.Style = 0
		for _, c := range n.Content {
			block(c)
		}
	}
	block(&node)
	out, err := yaml.Marshal(&node)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// toJSON writes a YAML document as indented JSON, keys in their order.
func toJSON(tb testing.TB, data []byte) []byte {
	tb.Helper()
	order := &input.KeyOrder{}
	doc, err := input.Decode(engine.Input{Name: "yaml", Data: data}, order)
	if err != nil {
		tb.Fatal(err)
	}
	defer doc.Release()
	return input.AppendJSON(nil, doc.Root, order, true)
}

// TestFormatsRenderAlike holds the JSON and YAML forms of each input to the
// same prompt.
func TestFormatsRenderAlike(t *testing.T) {
	for _, f := range formatInputs(t) {
		j, err := f.lib.Render(context.Background(), f.variant, engine.Input{Name: "in.json", Data: f.json})
		if err != nil {
			t.Fatalf("%s as JSON: %v", f.name, err)
		}
		y, err := f.lib.Render(context.Background(), f.variant, engine.Input{Name: "in.yaml", Data: f.yaml})
		if err != nil {
			t.Fatalf("%s as YAML: %v", f.name, err)
		}
		if j.Text != y.Text {
			t.Errorf("%s: YAML and JSON render differently from byte %d", f.name, phrase.CommonPrefixLen(j.Text, y.Text))
		}
		if bytes.HasPrefix(bytes.TrimSpace(f.yaml), []byte("{")) {
			t.Errorf("%s: the YAML form is JSON", f.name)
		}
	}
}

// BenchmarkFormat renders the same input from JSON and from YAML; the YAML
// run reports its time over the JSON run's (x-json), and "paired" runs both
// in the same ops. The design's budget is 1.2x.
func BenchmarkFormat(b *testing.B) {
	for _, f := range formatInputs(b) {
		render := func(name string, data []byte) func() error {
			in := engine.Input{Name: name, Data: data}
			return func() error {
				_, err := f.lib.Render(context.Background(), f.variant, in)
				return err
			}
		}
		for _, format := range []string{"json", "yaml"} {
			data := f.json
			if format == "yaml" {
				data = f.yaml
			}
			b.Run(f.name+"/"+format, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				runOps(b, render("in."+format, data))
				if format == "json" {
					recordFloor(b, "format/"+f.name)
				} else {
					reportRatio(b, "format/"+f.name, "x-json")
				}
			})
		}
		b.Run(f.name+"/paired", func(b *testing.B) {
			paired(b, render("in.yaml", f.yaml), base{"x-json", render("in.json", f.json)})
		})
	}
}

// BenchmarkLoad loads the embedded library as a render command does
// before its first render, which --help does not pay: "delegation" loads
// the one variant `render delegation` uses, "all" every variant, as lint,
// test and serve do.
func BenchmarkLoad(b *testing.B) {
	b.Run("delegation", func(b *testing.B) {
		b.ReportAllocs()
		runOps(b, func() error { _, err := loadDelegation(); return err })
	})
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := engine.LoadStrict(promptsmith.FS()); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The first render of the delegation example after a load, as a
	// command's, against the next one, warm (x-warm, target ≤ 3): each op
	// loads the library untimed, then times both.
	b.Run("first-render", func(b *testing.B) {
		var first, warm time.Duration
		for b.Loop() {
			b.StopTimer()
			v, err := loadDelegation()
			if err != nil {
				b.Fatal(err)
			}
			in, err := v.Example("revoked-deploy")
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			for i, spent := range []*time.Duration{&first, &warm} {
				start := time.Now()
				if _, err := v.Render(context.Background(), in); err != nil {
					b.Fatalf("render %d: %v", i+1, err)
				}
				*spent += time.Since(start)
			}
		}
		b.ReportMetric(float64(first.Microseconds())/float64(b.N), "first-µs")
		b.ReportMetric(float64(warm.Microseconds())/float64(b.N), "warm-µs")
		if warm > 0 {
			b.ReportMetric(float64(first)/float64(warm), "x-warm")
		}
	})
}

// loadDelegation loads the embedded library afresh, as a render command
// does before its first render, and the one variant `render delegation`
// uses.
func loadDelegation() (*engine.Variant, error) {
	lib, err := engine.Load(promptsmith.FS())
	if err != nil {
		return nil, err
	}
	return lib.Variant("delegation")
}
