package budget_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/engine/internal/budget"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
)

func decode(t *testing.T, src string) *input.Document {
	t.Helper()
	doc, err := input.Decode(input.Input{Name: "in.json", Data: []byte(src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// jsonOf writes v as compact JSON in the document's key order.
func jsonOf(doc *input.Document, v any) string {
	return string(input.AppendJSON(nil, v, doc.Order(), false))
}

func str(s string) *string { return &s }

// TestCutOrder holds the order of the cuts: lowest priority first, and of
// units with the same priority the one declared last first; a section is
// one cut, a list one cut per item.
func TestCutOrder(t *testing.T) {
	cases := []struct {
		name  string
		units []manifest.Unit
		input string
		// want is, for each k from 0 to Total, the input after k cuts and
		// the sections dropped.
		want []string
	}{
		{"by priority, then last declared first",
			[]manifest.Unit{{Name: "a", Section: "a", Priority: 1}, {Name: "b", Section: "b", Priority: 1}, {Name: "c", Section: "c"}},
			`{}`,
			[]string{`{} []`, `{} [c]`, `{} [b c]`, `{} [a b c]`}},
		{"a list before a section of higher priority",
			[]manifest.Unit{{Name: "tail", Section: "tail", Priority: 1}, {Name: "items", List: "/items"}},
			`{"items": [1, 2, 3]}`,
			[]string{`{"items":[1,2,3]} []`, `{"items":[1,2]} []`, `{"items":[1]} []`, `{"items":[]} []`, `{"items":[]} [tail]`}},
		{"a negative priority goes first",
			[]manifest.Unit{{Name: "items", List: "/items"}, {Name: "tail", Section: "tail", Priority: -1}},
			`{"items": [1]}`,
			[]string{`{"items":[1]} []`, `{"items":[1]} [tail]`, `{"items":[]} [tail]`}},
		{"a text, then a list",
			[]manifest.Unit{{Name: "items", List: "/items", Priority: 5}, {Name: "note", Text: "/note", Marker: str("~")}},
			`{"note": "abc", "items": ["x", "y"]}`,
			[]string{`{"note":"abc","items":["x","y"]} []`, `{"note":"a~","items":["x","y"]} []`, `{"note":"~","items":["x","y"]} []`,
				`{"note":"~","items":["x"]} []`, `{"note":"~","items":[]} []`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := decode(t, c.input)
			p := budget.New(c.units, doc)
			if p.Total() != len(c.want)-1 {
				t.Fatalf("Total() = %d, want %d", p.Total(), len(c.want)-1)
			}
			for k, want := range c.want {
				cut := p.Apply(k)
				var dropped []string
				for s, ok := range cut.Dropped {
					if ok {
						dropped = append(dropped, s)
					}
				}
				slices.Sort(dropped)
				if got := jsonOf(doc, cut.Root) + " [" + strings.Join(dropped, " ") + "]"; got != want {
					t.Errorf("Apply(%d) = %s, want %s", k, got, want)
				}
			}
		})
	}
}

// ids lists the "id" of each object of a list.
func ids(v any) string {
	var out []string
	for _, e := range v.([]any) {
		id, _ := e.(map[string]any)["id"].(string)
		out = append(out, id)
	}
	return strings.Join(out, ",")
}

// TestListDrop holds which items of a list go first: the last by default,
// the first, the oldest or newest by a time, the lowest or highest by a
// number (an item without one first, of equal keys the earlier first), only
// those matching where:, and never the keep: items left.
func TestListDrop(t *testing.T) {
	dated := `{"l": [{"id": "a", "at": "2024-03-01"}, {"id": "b", "at": "2024-01-01T10:00:00Z"}, {"id": "c"}, {"id": "d", "at": "2024-02-01"}]}`
	tied := `{"l": [{"id": "a", "at": "2024-01-02"}, {"id": "b", "at": "2024-01-01"}, {"id": "c", "at": "2024-01-02"}, {"id": "d"}]}`
	numbered := `{"l": [{"id": "a", "p": 1}, {"id": "b", "p": 3.5}, {"id": "c", "p": 2}, {"id": "d", "p": "9"}]}`
	plain := `{"l": [{"id": "a", "k": "log"}, {"id": "b", "k": "msg"}, {"id": "c", "k": "log"}]}`
	cases := []struct {
		name  string
		unit  manifest.Unit
		input string
		want  []string // the ids left after each cut, k = 0 … Total
	}{
		{"last by default", manifest.Unit{}, plain, []string{"a,b,c", "a,b", "a", ""}},
		{"last", manifest.Unit{Drop: "last"}, plain, []string{"a,b,c", "a,b", "a", ""}},
		{"first", manifest.Unit{Drop: "first"}, plain, []string{"a,b,c", "b,c", "c", ""}},
		{"keep", manifest.Unit{Drop: "first", Keep: 1}, plain, []string{"a,b,c", "b,c", "c"}},
		{"keep more than there are", manifest.Unit{Keep: 5}, plain, []string{"a,b,c"}},
		{"where", manifest.Unit{Where: map[string]any{"k": "log"}}, plain, []string{"a,b,c", "a,b", "b"}},
		{"where nothing matches", manifest.Unit{Where: map[string]any{"k": "none"}}, plain, []string{"a,b,c"}},
		{"oldest", manifest.Unit{Drop: "oldest", By: "at"}, dated, []string{"a,b,c,d", "a,b,d", "a,d", "a", ""}},
		{"newest", manifest.Unit{Drop: "newest", By: "at"}, dated, []string{"a,b,c,d", "a,b,d", "b,d", "b", ""}},
		{"newest of equals, the earlier first", manifest.Unit{Drop: "newest", By: "at"}, tied, []string{"a,b,c,d", "a,b,c", "b,c", "b", ""}},
		{"oldest of equals, the earlier first", manifest.Unit{Drop: "oldest", By: "at"}, tied, []string{"a,b,c,d", "a,b,c", "a,c", "c", ""}},
		{"lowest", manifest.Unit{Drop: "lowest", By: "p"}, numbered, []string{"a,b,c,d", "a,b,c", "b,c", "b", ""}},
		{"highest", manifest.Unit{Drop: "highest", By: "p"}, numbered, []string{"a,b,c,d", "a,b,c", "a,c", "a", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := decode(t, c.input)
			u := c.unit
			u.Name, u.List = "l", "/l"
			p := budget.New([]manifest.Unit{u}, doc)
			var got []string
			for k := 0; k <= p.Total(); k++ {
				got = append(got, ids(p.Apply(k).Root["l"]))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("left after each cut: %q, want %q", got, c.want)
			}
		})
	}
}

// TestSharedList holds that two units on one list share its items: an item
// the first unit to cut may drop is never the second's, so the second only
// cuts what is left to it.
func TestSharedList(t *testing.T) {
	doc := decode(t, `{"l": [{"id": "a", "k": "log"}, {"id": "b", "k": "msg"}, {"id": "c", "k": "log"}]}`)
	p := budget.New([]manifest.Unit{
		{Name: "all", List: "/l", Drop: "first", Priority: 1},
		{Name: "logs", List: "/l", Where: map[string]any{"k": "log"}},
	}, doc)
	cases := []struct {
		name    string
		k       int
		left    string
		omitted map[string]int
	}{
		{"uncut", 0, "a,b,c", map[string]int{"logs": 0, "all": 0}},
		{"the last log", 1, "a,b", map[string]int{"logs": 1, "all": 0}},
		{"every log", 2, "b", map[string]int{"logs": 2, "all": 0}},
		{"then what is left to the other", 3, "", map[string]int{"logs": 2, "all": 1}},
	}
	if p.Total() != 3 {
		t.Fatalf("Total() = %d, want 3", p.Total())
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cut := p.Apply(c.k)
			if got := ids(cut.Root["l"]); got != c.left || !reflect.DeepEqual(cut.Omitted, c.omitted) {
				t.Errorf("Apply(%d): left %q, omitted %v; want %q, %v", c.k, got, cut.Omitted, c.left, c.omitted)
			}
		})
	}
}

// TestTextCut holds how a text is cut: from its end, a character at a
// time, ending with the marker, never shorter than keep, never longer than
// the whole text, always valid UTF-8, and never inside a combining
// sequence, an emoji joined by a zero-width joiner, a skin tone or a
// variation selector.
func TestTextCut(t *testing.T) {
	family := "\U0001F468\u200D\U0001F469\u200D\U0001F467" // man ZWJ woman ZWJ girl
	cases := []struct {
		name   string
		text   string
		marker *string
		keep   int
		want   []string // the text after k = 1 … Total cuts
		chars  []int    // the characters each of those cut
	}{
		{"ascii", "abcdefg", str("..."), 2, []string{"abc...", "ab..."}, []int{4, 5}},
		{"two-byte characters", "héllo", str("~"), 0, []string{"hél~", "hé~", "h~", "~"}, []int{2, 3, 4, 5}},
		{"empty marker", "abc", str(""), 0, []string{"ab", "a", ""}, []int{1, 2, 3}},
		{"default marker", "0123456789abcdef", nil, 0,
			[]string{"012" + manifest.DefaultMarker, "01" + manifest.DefaultMarker, "0" + manifest.DefaultMarker, manifest.DefaultMarker},
			[]int{13, 14, 15, 16}},
		{"shorter than the marker", "short", nil, 0, nil, nil},
		{"a combining accent", "ae\u0301b", str("~"), 0, []string{"a~", "a~", "~"}, []int{3, 3, 4}},
		{"a ZWJ sequence", "x" + family + "yz", str("~"), 0,
			[]string{"x" + family + "~", "x~", "x~", "x~", "x~", "x~", "~"}, []int{2, 7, 7, 7, 7, 7, 8}},
		{"a skin tone", "ok\U0001F44D\U0001F3FD!", str("~"), 0, []string{"ok~", "ok~", "o~", "~"}, []int{3, 3, 4, 5}},
		{"a variation selector", "a\u263A\uFE0Fb", str("~"), 0, []string{"a~", "a~", "~"}, []int{3, 3, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := decode(t, `{"t": "`+c.text+`"}`)
			p := budget.New([]manifest.Unit{{Name: "t", Text: "/t", Marker: c.marker, Keep: c.keep}}, doc)
			if p.Total() != len(c.want) {
				t.Fatalf("Total() = %d, want %d", p.Total(), len(c.want))
			}
			full := utf8.RuneCountInString(c.text)
			for k := 1; k <= p.Total(); k++ {
				cut := p.Apply(k)
				got := cut.Root["t"].(string)
				if got != c.want[k-1] || cut.Omitted["t"] != c.chars[k-1] {
					t.Errorf("Apply(%d) = %q, %d characters cut; want %q, %d", k, got, cut.Omitted["t"], c.want[k-1], c.chars[k-1])
				}
				if !utf8.ValidString(got) || utf8.RuneCountInString(got) >= full {
					t.Errorf("Apply(%d) = %q: not a valid, shorter text", k, got)
				}
			}
		})
	}
}

// TestApplied holds what Apply reports: for every list and text unit how
// much it left out (zero for one not cut), and each unit cut, in the order
// cut, with what and how many of the plan's cuts it took; Applied encodes
// as the engine's budget report shows it.
func TestApplied(t *testing.T) {
	doc := decode(t, `{"items": [1, 2, 3], "note": "abcdef"}`)
	p := budget.New([]manifest.Unit{
		{Name: "tail", Section: "tail", Priority: 2},
		{Name: "items", List: "/items", Priority: 1, Keep: 1},
		{Name: "note", Text: "/note", Marker: str("~")},
	}, doc)
	cases := []struct {
		name    string
		k       int
		units   []budget.Applied
		items   int
		chars   int
		encoded string
	}{
		{"uncut", 0, nil, 0, 0, `null`},
		{"part of the text", 2, []budget.Applied{{Name: "note", Kind: manifest.UnitText, Chars: 3, Steps: 2}}, 0, 3,
			`[{"unit":"note","kind":"text","chars":3}]`},
		{"the text, then an item", 6, []budget.Applied{
			{Name: "note", Kind: manifest.UnitText, Chars: 6, Steps: 5},
			{Name: "items", Kind: manifest.UnitList, Items: 1, Steps: 1},
		}, 1, 6, `[{"unit":"note","kind":"text","chars":6},{"unit":"items","kind":"list","items":1}]`},
		{"everything", 8, []budget.Applied{
			{Name: "note", Kind: manifest.UnitText, Chars: 6, Steps: 5},
			{Name: "items", Kind: manifest.UnitList, Items: 2, Steps: 2},
			{Name: "tail", Kind: manifest.UnitSection, Dropped: true, Steps: 1},
		}, 2, 6, `[{"unit":"note","kind":"text","chars":6},{"unit":"items","kind":"list","items":2},{"unit":"tail","kind":"section","dropped":true}]`},
		{"past Total", 100, []budget.Applied{
			{Name: "note", Kind: manifest.UnitText, Chars: 6, Steps: 5},
			{Name: "items", Kind: manifest.UnitList, Items: 2, Steps: 2},
			{Name: "tail", Kind: manifest.UnitSection, Dropped: true, Steps: 1},
		}, 2, 6, `[{"unit":"note","kind":"text","chars":6},{"unit":"items","kind":"list","items":2},{"unit":"tail","kind":"section","dropped":true}]`},
	}
	if p.Total() != 8 {
		t.Fatalf("Total() = %d, want 8", p.Total())
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cut := p.Apply(c.k)
			if !reflect.DeepEqual(cut.Units, c.units) {
				t.Errorf("Apply(%d).Units = %+v, want %+v", c.k, cut.Units, c.units)
			}
			if cut.Omitted["items"] != c.items || cut.Omitted["note"] != c.chars {
				t.Errorf("Apply(%d).Omitted = %v, want items %d, note %d", c.k, cut.Omitted, c.items, c.chars)
			}
			if enc, _ := json.Marshal(cut.Units); string(enc) != c.encoded {
				t.Errorf("Apply(%d).Units encode as %s, want %s", c.k, enc, c.encoded)
			}
		})
	}
}

// TestNothingToCut holds that a unit whose field is missing, or not of its
// kind, allows no cut, and that such units still report zero omitted.
func TestNothingToCut(t *testing.T) {
	cases := []struct {
		name  string
		unit  manifest.Unit
		input string
	}{
		{"list missing", manifest.Unit{Name: "u", List: "/l"}, `{}`},
		{"list is a text", manifest.Unit{Name: "u", List: "/l"}, `{"l": "abc"}`},
		{"list is empty", manifest.Unit{Name: "u", List: "/l"}, `{"l": []}`},
		{"text missing", manifest.Unit{Name: "u", Text: "/t"}, `{}`},
		{"text is a number", manifest.Unit{Name: "u", Text: "/t"}, `{"t": 12345678901234}`},
		{"text inside a missing object", manifest.Unit{Name: "u", Text: "/o/t"}, `{"o": null}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := decode(t, c.input)
			p := budget.New([]manifest.Unit{c.unit}, doc)
			cut := p.Apply(1)
			if p.Total() != 0 || len(cut.Units) != 0 || !reflect.DeepEqual(cut.Omitted, map[string]int{"u": 0}) {
				t.Errorf("Total %d, units %+v, omitted %v", p.Total(), cut.Units, cut.Omitted)
			}
			if got := jsonOf(doc, cut.Root); got != jsonOf(doc, doc.Root) {
				t.Errorf("Apply changed the input to %s", got)
			}
		})
	}
}

// TestApplyCopies holds that Apply never changes the document: what it cuts
// are copies, in the input's key order, and what it does not cut is shared.
func TestApplyCopies(t *testing.T) {
	const src = `{"z": {"keep": [1]}, "b": {"y": 1, "note": "abcdef", "a": 2}, "items": [{"t": "xyz"}, {"t": "uvw"}], "l": [3, 2, 1]}`
	cases := []struct {
		name string
		unit manifest.Unit
		want string
	}{
		{"a nested text", manifest.Unit{Name: "n", Text: "/b/note", Marker: str("~")},
			`{"z":{"keep":[1]},"b":{"y":1,"note":"abcd~","a":2},"items":[{"t":"xyz"},{"t":"uvw"}],"l":[3,2,1]}`},
		{"a text in a list", manifest.Unit{Name: "n", Text: "/items/1/t", Marker: str("~")},
			`{"z":{"keep":[1]},"b":{"y":1,"note":"abcdef","a":2},"items":[{"t":"xyz"},{"t":"u~"}],"l":[3,2,1]}`},
		{"a list", manifest.Unit{Name: "n", List: "/l", Drop: "first"},
			`{"z":{"keep":[1]},"b":{"y":1,"note":"abcdef","a":2},"items":[{"t":"xyz"},{"t":"uvw"}],"l":[2,1]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := decode(t, src)
			cut := budget.New([]manifest.Unit{c.unit}, doc).Apply(1)
			if got := jsonOf(doc, cut.Root); got != c.want {
				t.Errorf("cut input %s\nwant %s", got, c.want)
			}
			if got := jsonOf(doc, doc.Root); got != strings.NewReplacer(" ", "").Replace(src) {
				t.Errorf("the document changed: %s", got)
			}
			if reflect.ValueOf(cut.Root["z"]).Pointer() != reflect.ValueOf(doc.Root["z"]).Pointer() {
				t.Error("an object no cut touches was copied")
			}
		})
	}
}

// TestTextCutInsideListUnit holds that a text cut inside a list that a
// later unit cuts survives that unit: the cut input keeps every earlier cut.
func TestTextCutInsideListUnit(t *testing.T) {
	doc := decode(t, `{"h": [{"t": "abcdef"}, {"t": "x"}]}`)
	p := budget.New([]manifest.Unit{
		{Name: "t", Text: "/h/0/t", Marker: str("~")},
		{Name: "h", List: "/h", Priority: 1, Keep: 1},
	}, doc)
	cases := []struct {
		name string
		k    int
		want string
	}{
		{"the text cut", 5, `{"h":[{"t":"~"},{"t":"x"}]}`},
		{"then the list", 6, `{"h":[{"t":"~"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := jsonOf(doc, p.Apply(c.k).Root); got != c.want {
				t.Errorf("Apply(%d) = %s, want %s", c.k, got, c.want)
			}
		})
	}
}

// TestNestedListUnits holds that a list unit inside an element of another
// list unit cuts that element, wherever the outer cut leaves it.
func TestNestedListUnits(t *testing.T) {
	doc := decode(t, `{"h": [{"b": [1, 2]}, {"b": [3, 4]}]}`)
	p := budget.New([]manifest.Unit{
		{Name: "b", List: "/h/0/b"},
		{Name: "h", List: "/h", Priority: 1, Drop: "first"},
	}, doc)
	if got, want := jsonOf(doc, p.Apply(3).Root), `{"h":[{"b":[3,4]}]}`; got != want {
		t.Errorf("Apply(3) = %s, want %s", got, want)
	}
}

// TestTextKeepWithCombiningMark holds keep: a text unit never cuts the
// first keep characters, even when the cut would fall inside a grapheme.
func TestTextKeepWithCombiningMark(t *testing.T) {
	doc := decode(t, "{\"t\": \"e\u0301xyz\"}")
	p := budget.New([]manifest.Unit{{Name: "t", Text: "/t", Marker: str("~"), Keep: 1}}, doc)
	got := p.Apply(p.Total()).Root["t"].(string)
	if !strings.HasPrefix(got, "e\u0301") {
		t.Errorf("Apply(Total) = %q: keep: 1 left no character", got)
	}
	// Where the cluster keep falls in runs to the end, nothing is cut: the
	// text stays whole, without a marker that would make it longer.
	doc = decode(t, "{\"t\": \"e\u0301\u0302\"}")
	p = budget.New([]manifest.Unit{{Name: "t", Text: "/t", Marker: str(""), Keep: 1}}, doc)
	cut := p.Apply(p.Total())
	if got := cut.Root["t"].(string); got != "e\u0301\u0302" || cut.Omitted["t"] != 0 {
		t.Errorf("Apply(Total) = %q, omitted %d; want the text whole, 0 omitted", got, cut.Omitted["t"])
	}
}
