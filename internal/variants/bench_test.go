package variants_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/tokens"
)

// benchInput is the restricted-tools example with a parent of n bytes, as JSON.
// With sectionRef its inherited policy names a heading of the parent, which
// costs a parse of the whole parent to verify.
func benchInput(b *testing.B, n int, sectionRef bool) []byte {
	data, err := os.ReadFile("../../templates/delegation/examples/restricted-tools.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var in map[string]any
	if err := yaml.Unmarshal(data, &in); err != nil {
		b.Fatal(err)
	}
	in["parent"].(map[string]any)["prompt"] = fixture.ParentPrompt(n)
	sub := in["subagent"].(map[string]any)
	if sectionRef {
		sub["inherited_policies"] = []any{map[string]any{"ref": "Policy 0", "note": "applies"}}
	} else {
		delete(sub, "inherited_policies")
	}
	out, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkDelegation compares the whole pipeline (decode, validate, defaults,
// rules, id, render, checks, section map) with a bare text/template Execute of
// the same section templates on already-decoded data. The ratio pipeline/bare
// is the budget the design sets (3x on a ~5 KB prompt); delegation cost should
// grow linearly with the parent (10 ms for 1 MiB). "section-ref" adds an
// inherited policy named by SectionPath, which needs the parent's outline:
// this benchmark delegates the same parent again, as a parent does for each
// of its subagents, so the outline comes from the cache; the first delegation
// of a new parent parses it (about 25 ms for 1 MiB on the reference machine).
func BenchmarkDelegation(b *testing.B) {
	lib, v := fixture.Library(b), fixture.Variant(b, "delegation")
	for _, c := range []struct {
		size       int
		sectionRef bool
	}{{5 << 10, false}, {1 << 20, false}, {5 << 10, true}, {1 << 20, true}} {
		size := c.size
		input := benchInput(b, size, c.sectionRef)
		name := fmt.Sprintf("parent=%dKiB", size>>10)
		if c.sectionRef {
			name += "/section-ref"
		}
		res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "bench", Data: input})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/pipeline", func(b *testing.B) {
			benchPipeline(b, lib, "delegation", engine.Input{Name: "bench", Data: input}, len(res.Text))
		})
		b.Run(name+"/bare", func(b *testing.B) {
			benchBare(b, v, bareData(b, lib, input, res), len(res.Text))
		})
	}
}

// benchBare is the floor a pipeline is measured against: a bare
// text/template Execute of the variant's section templates on data that is
// already decoded and has its defaults.
// benchPipeline times the whole pipeline: lib's render of in with variant,
// a prompt of size bytes.
func benchPipeline(b *testing.B, lib *engine.Library, variant string, in engine.Input, size int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lib.Render(context.Background(), variant, in); err != nil {
			b.Fatal(err)
		}
	}
}

func benchBare(b *testing.B, v *engine.Variant, data map[string]any, size int) {
	tmpl := fixture.BareTemplates(b, v.Name())
	sections := v.Manifest().Sections
	var buf bytes.Buffer
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		for _, s := range sections {
			if err := tmpl.ExecuteTemplate(&buf, s+".md.tmpl", data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// bareData is the input as the templates see it: decoded, with the schema's
// defaults and the ids, prepared once outside the timed loop.
func bareData(b *testing.B, lib *engine.Library, input []byte, res *engine.Result) map[string]any {
	var data map[string]any
	if err := json.Unmarshal(input, &data); err != nil {
		b.Fatal(err)
	}
	fill := func(m map[string]any, key string, v any) {
		if _, ok := m[key]; !ok {
			m[key] = v
		}
	}
	fill(data, "subagent", map[string]any{})
	sub := data["subagent"].(map[string]any)
	fill(sub, "inherited_policies", []any{})
	fill(sub, "role", "")
	d := data["delegation"].(map[string]any)
	fill(d, "additional_context", []any{})
	fill(d, "scope_constraints", []any{})
	fill(d, "may_delegate", false)
	fill(data["reporting"].(map[string]any), "citations", "")
	data["delegation_id"] = res.IDs["delegation_id"]
	// What the engine gives every render of a variant with a budget: the
	// count each unit left out, none here.
	v, err := lib.Variant("delegation")
	if err != nil {
		b.Fatal(err)
	}
	omitted := map[string]any{}
	for _, u := range v.Manifest().Budget {
		if u.Kind() != manifest.UnitSection {
			omitted[u.Name] = 0
		}
	}
	data["budget"] = map[string]any{"omitted": omitted, "max_tokens": 0}
	return data
}

// BenchmarkSpaceBudget fits a space prompt with 1,000 memories to 2,000
// tokens, next to a plain render of the same input with its tokens
// counted. The fit's renders metric is how many times the templates ran:
// about three, the uncut prompt, the guessed cut and its neighbour.
func BenchmarkSpaceBudget(b *testing.B) {
	lib := fixture.Library(b)
	tc, err := tokens.New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	input := fixture.SpaceWithManyMemories("bench")
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := lib.Render(context.Background(), "space", input)
			if err != nil {
				b.Fatal(err)
			}
			tc.CountTokens(res.Text)
		}
	})
	b.Run("fit-2000", func(b *testing.B) {
		b.ReportAllocs()
		renders := 0
		for b.Loop() {
			res, err := lib.Render(context.Background(), "space", input, engine.FitTokens(2000, tc))
			if err != nil {
				b.Fatal(err)
			}
			renders = res.Budget.Renders
		}
		b.ReportMetric(float64(renders), "renders")
	})
}
