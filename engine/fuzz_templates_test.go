package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// templateGen builds a template library from fuzz bytes: each byte picks
// the next piece of a body (text, template, include, range, with, if),
// so that every input is a library that parses and the fuzzer searches
// the ways templates call and loop, not the ways text fails to parse.
type templateGen struct {
	data []byte
	size int
}

func (g *templateGen) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

var genNames = []string{"a", "b", "c"}

var genCounts = []string{"0", "1", "2", "3", "1000", "100000", "."}

func (g *templateGen) name() string { return genNames[int(g.next())%len(genNames)] }

// body writes up to a few pieces, depth levels of blocks deep at most.
func (g *templateGen) body(b *strings.Builder, depth int) {
	for n := int(g.next()) % 4; n > 0 && len(g.data) > 0 && g.size < 4000; n-- {
		g.size++
		switch k := g.next() % 12; {
		case k == 0:
			b.WriteString("x")
		case k == 1:
			fmt.Fprintf(b, `{{ template %q . }}`, g.name())
		case k == 2:
			fmt.Fprintf(b, `{{ include %q . }}`, g.name())
		case k == 3:
			fmt.Fprintf(b, `{{ $v := include %q . }}{{ $v }}{{ $v }}`, g.name())
		case k == 4:
			fmt.Fprintf(b, `{{ template %q (add1 (int .)) }}`, g.name())
		case k == 5:
			fmt.Fprintf(b, `{{ len (uniq (until %s)) }}`, genCounts[int(g.next())%len(genCounts)])
		case depth > 4:
			b.WriteString("y")
		case k == 6 || k == 7:
			fmt.Fprintf(b, `{{ range $i := until %s }}`, genCounts[int(g.next())%len(genCounts)])
			g.body(b, depth+1)
			b.WriteString(`{{ end }}`)
		case k == 8:
			b.WriteString(`{{ with . }}`)
			g.body(b, depth+1)
			b.WriteString(`{{ end }}`)
		case k == 9:
			fmt.Fprintf(b, `{{ if lt (int .) %s }}`, genCounts[int(g.next())%(len(genCounts)-1)])
			g.body(b, depth+1)
			b.WriteString(`{{ else }}`)
			g.body(b, depth+1)
			b.WriteString(`{{ end }}`)
		case k == 10:
			fmt.Fprintf(b, `{{ range $i := until %s }}{{ template %q $i }}{{ end }}`, genCounts[int(g.next())%len(genCounts)], g.name())
		default:
			fmt.Fprintf(b, `{{ with $x := include %q . }}`, g.name())
			g.body(b, depth+1)
			b.WriteString(`{{ end }}`)
		}
	}
}

// library is the defines a, b and c and a body that calls them.
func (g *templateGen) library() string {
	var b strings.Builder
	for _, name := range genNames {
		fmt.Fprintf(&b, `{{ define %q }}`, name)
		g.body(&b, 0)
		b.WriteString(`{{ end }}`)
	}
	g.body(&b, 0)
	fmt.Fprintf(&b, `{{ template %q 0 }}`, g.name())
	return b.String()
}

// FuzzTemplates renders libraries built of define, template, include,
// range and with under a short deadline and small limits: whatever they
// do, a render ends with a prompt or an error of the library's, never a
// crash of the process, a hang or an internal error.
func FuzzTemplates(f *testing.F) {
	f.Add([]byte{3, 1, 0, 3, 2, 1, 3, 1, 0, 3, 2, 2})     // a → b → a through template and include
	f.Add([]byte{1, 6, 5, 1, 6, 5, 1, 0, 0, 0, 0, 0, 0})  // nested ranges
	f.Add([]byte{1, 4, 0, 1, 10, 4, 0, 2, 9, 2, 1, 4, 1}) // recursion with a counter
	f.Add([]byte{2, 5, 5, 5, 3, 1, 1, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		body := (&templateGen{data: data}).library()
		lib, err := engine.Load(hostileFS(`{"type": "object"}`, body), engine.WithLimits(engine.Limits{Timeout: 100 * time.Millisecond, OutputBytes: 1 << 20, ListItems: 100_000}))
		if err != nil {
			t.Fatalf("load %s: %v", body, err)
		}
		v, err := lib.Variant("hostile")
		if err != nil {
			t.Fatalf("load %s: %v", body, err)
		}
		v.Lint() // the language server lints what it renders
		_, err = v.Render(context.Background(), engine.Input{Name: "in.json", Data: []byte(`{}`)}, engine.Cover(v.NewCoverage()))
		var e *engine.Error
		if err != nil && (!errors.As(err, &e) || e.Kind != engine.KindTemplate) {
			t.Fatalf("render %s: %v", body, err)
		}
	})
}
