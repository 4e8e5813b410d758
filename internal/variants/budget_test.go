package variants_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/tokens"
)

// oversized returns an example with every list a budget may cut grown
// fivefold (copies of its items, each text a little different, within the
// schema's caps), so that the prompt needs cutting.
func oversized(t *testing.T, v *engine.Variant, example string) []byte {
	t.Helper()
	return editedExample(t, v, example, func(root map[string]any) {
		grownLists := map[string]bool{}
		for _, u := range v.Manifest().Budget {
			if u.List == "" || grownLists[u.List] {
				continue
			}
			grownLists[u.List] = true
			l, ok := lookupList(root, u.List)
			if !ok || len(l) == 0 {
				continue
			}
			grown := append([]any{}, l...)
			for copyN := 1; copyN < 5 && len(grown)+len(l) <= 1000; copyN++ {
				for _, item := range l {
					grown = append(grown, varied(item, copyN))
				}
			}
			setList(root, u.List, grown)
		}
	})
}

// editedExample is v's example with edit applied to its decoded root,
// encoded again as JSON in the example's key order.
func editedExample(t *testing.T, v *engine.Variant, example string, edit func(root map[string]any)) []byte {
	t.Helper()
	in, err := v.Example(example)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := input.Decode(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Release()
	edit(doc.Root)
	return input.AppendJSON(nil, doc.Root, doc.Order(), false)
}

func lookupList(root map[string]any, ptr string) ([]any, bool) {
	v, ok := pointer.Lookup(root, ptr)
	l, isList := v.([]any)
	return l, ok && isList
}

func setList(root map[string]any, ptr string, l []any) {
	toks := pointer.Split(ptr)
	parent, _ := pointer.Lookup(root, pointer.Join(toks[:len(toks)-1]))
	parent.(map[string]any)[toks[len(toks)-1]] = l
}

// varied copies an item, changing the fields that name or tell it, so
// that unique rules hold; enums, times and the rest stay as they are.
func varied(item any, n int) any {
	switch c := item.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, v := range c {
			m[k] = v
			if s, ok := v.(string); ok && textFields[k] {
				m[k] = fmt.Sprintf("%s (copy %d)", s, n)
			}
		}
		return m
	case string:
		return fmt.Sprintf("%s (copy %d)", c, n)
	}
	return item
}

var textFields = map[string]bool{"id": true, "name": true, "title": true, "text": true, "content": true,
	"body": true, "description": true, "file": true, "entityId": true, "skill_md": true}

// TestBudgetsFit: for every variant with a budget, an oversized input fits
// at several limits; a larger limit never keeps less; the checks pass;
// verbatim regions are byte for byte those of the whole prompt; the
// omitted counts are what the report says; the output is deterministic.
func TestBudgetsFit(t *testing.T) {
	t.Parallel()
	if raceDetector {
		t.Skip("go test without -race runs this: it shares nothing between goroutines, and token counts under the race detector take minutes")
	}
	lib := fittingLibrary(t)
	tc, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range lib.Names() {
		v, _ := lib.Variant(name)
		if len(v.Manifest().Budget) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) { fitsAtEveryLimit(t, lib, tc, v) })
	}
}

// fitsAtEveryLimit fits the example of v that grows largest, oversized,
// at limits from its least to its whole size.
func fitsAtEveryLimit(t *testing.T, lib *engine.Library, tc *tokens.Counter, v *engine.Variant) {
	name := v.Name()
	ex, data := "", []byte(nil)
	for _, e := range v.Examples() {
		if d := oversized(t, v, e); len(d) > len(data) {
			ex, data = e, d
		}
	}
	in := engine.Input{Name: name + "/" + ex, Data: data}
	full, err := lib.Render(context.Background(), name, in, engine.FitTokens(1<<30, tc))
	if err != nil {
		t.Fatalf("%s/%s oversized: %v", name, ex, err)
	}
	// The least the prompt can be: its tokens with every cut made.
	least := full.Budget.FullTokens
	_, err = lib.Render(context.Background(), name, in, engine.FitTokens(1, tc))
	var small *engine.BudgetTooSmall
	if errors.As(err, &small) {
		least = small.MinTokens
	} else if err != nil {
		t.Fatalf("%s/%s at 1 token: %v, want a BudgetTooSmall", name, ex, err)
	}
	prevOmitted := -1
	for _, frac := range []float64{1, 0.4, 0} {
		limit := least + int(frac*float64(full.Budget.FullTokens-least))
		res, err := lib.Render(context.Background(), name, in, engine.FitTokens(limit, tc))
		if err != nil {
			t.Errorf("%s/%s at %d tokens: %v", name, ex, limit, err)
			continue
		}
		if res.Budget.Tokens > limit || tc.CountTokens(res.Text) != res.Budget.Tokens || !res.OK() {
			t.Errorf("%s/%s at %d: %d tokens, checks ok %v", name, ex, limit, res.Budget.Tokens, res.OK())
		}
		omitted := 0
		for _, c := range res.Budget.Cuts {
			omitted += c.Items
		}
		if prevOmitted >= 0 && omitted < prevOmitted {
			t.Errorf("%s/%s: a smaller limit (%d) left out fewer items (%d < %d)", name, ex, limit, omitted, prevOmitted)
		}
		prevOmitted = omitted
		for i, r := range res.Regions {
			if res.Text[r.Start:r.End] != full.Text[full.Regions[i].Start:full.Regions[i].End] {
				t.Errorf("%s/%s at %d: verbatim region %s changed", name, ex, limit, r.Name)
			}
		}
		if frac != 0.4 {
			continue
		}
		again, _ := lib.Render(context.Background(), name, in, engine.FitTokens(limit, tc))
		if again == nil || again.Text != res.Text {
			t.Errorf("%s/%s at %d: not deterministic", name, ex, limit)
		}
	}
}

// TestBudgetPrefixIsStable: two inputs that differ only in items a budget
// cuts give prompts that share their prefix up to where the cuts show,
// which a provider's prompt cache can reuse; the report says how much of
// each prompt the uncut one shares.
func TestBudgetPrefixIsStable(t *testing.T) {
	t.Parallel()
	lib := fittingLibrary(t)
	tc, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := lib.Variant("space")
	in, _ := v.Example("crowded")
	var older []any
	more := engine.Input{Name: "more", Data: editedExample(t, v, "crowded", func(root map[string]any) {
		older = root["memories"].([]any)
		for i := range 20 { // older than every memory of the example
			older = append(older, map[string]any{"content": fmt.Sprintf("An old note %d.", i), "updatedAt": "2025-01-01T09:00:00Z"})
		}
		root["memories"] = older
	})}
	a, err := lib.Render(context.Background(), "space", in, engine.FitTokens(1000, tc))
	if err != nil {
		t.Fatal(err)
	}
	b, err := lib.Render(context.Background(), "space", more, engine.FitTokens(1000, tc))
	if err != nil {
		t.Fatal(err)
	}
	shared := phrase.CommonPrefixLen(a.Text, b.Text)
	// The extra memories are the oldest, cut first: both prompts show the
	// same memories, and differ only after the last of them, where the
	// memories block says how many it leaves out.
	cutMemories := false
	for _, c := range a.Budget.Cuts {
		cutMemories = cutMemories || (c.Name == "memories" && c.Items > 0)
	}
	var memories engine.Section
	for _, s := range a.Sections {
		if s.Name == "memories" {
			memories = s
		}
	}
	lastShown := -1
	for _, m := range older {
		first, _, _ := strings.Cut(strings.TrimSpace(m.(map[string]any)["content"].(string)), "\n")
		if i := strings.LastIndex(a.Text[memories.Start:memories.End], first); i >= 0 {
			lastShown = max(lastShown, memories.Start+i+len(first))
		}
	}
	if !cutMemories || lastShown < 0 {
		t.Fatalf("the example at 1000 tokens: memories cut %t, a memory shown %t", cutMemories, lastShown >= 0)
	}
	if shared < lastShown || shared >= memories.End {
		t.Errorf("the prompts share %d bytes; they differ before the last memory shown (byte %d) or after the memories block (byte %d)", shared, lastShown, memories.End)
	}
	if a.Budget.StablePrefix == 0 || a.Budget.StablePrefix > len(a.Text) || !strings.HasPrefix(a.Text, a.Text[:a.Budget.StablePrefix]) {
		t.Errorf("stable prefix %d", a.Budget.StablePrefix)
	}
}

// fittingLibrary is the embedded library with room for a fit's dozen
// renders and token counts on a slow machine or under the race detector:
// the default deadline is for one render a caller waits for.
func fittingLibrary(t *testing.T) *engine.Library {
	t.Helper()
	lib, err := engine.Load(promptsmith.FS(), engine.WithLimits(engine.Limits{Timeout: 10 * time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}
