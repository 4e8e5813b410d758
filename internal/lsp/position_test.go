package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestPositionsCountUTF16(t *testing.T) {
	t.Parallel()
	text := "a😀b\nçd\n"
	for _, tc := range []struct {
		pos protocol.Position
		off int
	}{
		{protocol.Position{Line: 0, Character: 0}, 0},
		{protocol.Position{Line: 0, Character: 1}, 1},
		{protocol.Position{Line: 0, Character: 3}, 5}, // the emoji is two units, four bytes
		{protocol.Position{Line: 0, Character: 4}, 6},
		{protocol.Position{Line: 0, Character: 99}, 6}, // past the line: its end
		{protocol.Position{Line: 1, Character: 1}, 9},
		{protocol.Position{Line: 9, Character: 0}, len(text)},
	} {
		if got := offsetOf(text, tc.pos); got != tc.off {
			t.Errorf("offsetOf(%+v) = %d, want %d", tc.pos, got, tc.off)
		}
		if tc.pos.Character < 99 && tc.pos.Line < 9 {
			if got := positionOf(text, tc.off); got != tc.pos {
				t.Errorf("positionOf(%d) = %+v, want %+v", tc.off, got, tc.pos)
			}
		}
	}
}

func TestIncrementalChanges(t *testing.T) {
	t.Parallel()
	text := "{{ .agent.name }}\nx😀y\n"
	r := func(l1, c1, l2, c2 uint32) *protocol.Range {
		return &protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	got := apply(text, []change{
		{Range: r(0, 10, 0, 14), Text: "nmae"},
		{Range: r(1, 1, 1, 3), Text: "é"}, // the emoji's two units
		{Range: r(2, 0, 2, 0), Text: "end"},
	})
	if want := "{{ .agent.nmae }}\nxéy\nend"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := apply(text, []change{{Text: "all new"}}); got != "all new" {
		t.Errorf("a full change gave %q", got)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]fileKind{
		"templates/space/goals.md.tmpl":         kindTemplate,
		"templates/space/_admin.tmpl":           kindTemplate,
		"templates/swarm/modes/code.md.tmpl":    kindTemplate,
		"templates/space/prompt.yaml":           kindManifest,
		"templates/space/examples/crowded.yaml": kindExample,
		"templates/space/examples/x.json":       kindExample,
		"schemas/space.schema.json":             kindSchema,
		"templates/README.md":                   kindOther,
		"templates/manifest.schema.json":        kindOther,
		"templates/space/examples/README.md":    kindOther,
	} {
		if got, _ := classify(p); got != want {
			t.Errorf("classify(%s) = %v, want %v", p, got, want)
		}
	}
}

func TestLineIndexAgreesWithPositionOf(t *testing.T) {
	t.Parallel()
	text := "a😀b\nçd\n\nlast"
	x := newLineIndex(text)
	for off := 0; off <= len(text); off++ {
		if got, want := x.position(off), positionOf(text, off); got != want {
			t.Errorf("offset %d: %+v, want %+v", off, got, want)
		}
	}
}
