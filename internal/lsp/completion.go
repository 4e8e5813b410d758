package lsp

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/internal/schema"
)

// completion offers what may be typed at a place: in a template, the
// fields the schema defines at the dot (or at $, or a variable), function
// names and partials; in an example input, the schema's keys and enum
// values; in prompt.yaml, the manifest's keys.
func (s *Server) completion(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) (*protocol.CompletionList, error) {
	p, text, sn, ok := s.document(uri)
	if !ok {
		return &protocol.CompletionList{Items: []protocol.CompletionItem{}}, nil
	}
	off := offsetOf(text, pos)
	var items []protocol.CompletionItem
	switch kind, variant := classify(p); kind {
	case kindTemplate:
		items = templateCompletion(s.analysis(sn, variant), templateName(p), text, off)
	case kindExample:
		items = exampleCompletion(s.analysis(sn, variant), text, off, strings.HasSuffix(p, ".json"))
	case kindManifest:
		items = manifestCompletion(sn, variant, text, off)
	}
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	return &protocol.CompletionList{Items: items}, ctx.Err()
}

// cursorAction is the action the offset is inside of, or false.
func cursorAction(text string, off int) (action, bool) {
	for _, act := range actions(text) {
		if act.start >= off {
			break
		}
		if off >= act.body && (off <= act.bodyEnd || !act.closed) {
			return act, true
		}
	}
	return action{}, false
}

func templateCompletion(a *analysis, name, text string, off int) []protocol.CompletionItem {
	act, ok := cursorAction(text, off)
	if !ok {
		return nil
	}
	toks := tokens(text, act.body, off)
	// inside a string after template or include: the partials
	if n := len(toks); n > 0 && toks[n-1].kind == tokString && (!closedString(toks[n-1].text) || toks[n-1].off+len(toks[n-1].text) > off) {
		if n > 1 && toks[n-2].kind == tokWord && (toks[n-2].text == "template" || toks[n-2].text == "include") {
			typed := toks[n-1].text[1:]
			return partialItems(a, name, text, off, typed)
		}
		return nil
	}
	start := off
	for start > act.body && (isNameByte(text[start-1]) || text[start-1] == '.' || text[start-1] == '$') {
		start--
	}
	word := text[start:off]
	sc := a.scopeAt(name, text, act.start)
	if strings.Contains(word, ".") || strings.HasPrefix(word, "$") {
		dot := strings.LastIndexByte(word, '.')
		if dot < 0 { // $ or $na: variables
			return variableItems(sc, text, start, off)
		}
		chain, typed := word[:dot], word[dot+1:]
		var n schema.Node
		switch chain {
		case "":
			n = sc.dot()
		default:
			n = a.chain(sc, chain)
		}
		rng := protocol.Range{Start: positionOf(text, off-len(typed)), End: positionOf(text, off)}
		items := fieldItems(n, rng)
		if a.v != nil && a.runsOnInput(name) && !sc.inDefine() && (chain == "$" || chain == "" && len(sc.frames) == 1) {
			for _, x := range a.extras() {
				items = append(items, protocol.CompletionItem{Label: x, Kind: protocol.CompletionItemKindField, Detail: "added by the engine (manifest)",
					TextEdit: &protocol.TextEdit{Range: rng, NewText: x}})
			}
		}
		return items
	}
	rng := protocol.Range{Start: positionOf(text, start), End: positionOf(text, off)}
	var items []protocol.CompletionItem
	for _, f := range functions() {
		items = append(items, protocol.CompletionItem{Label: f.name, Kind: protocol.CompletionItemKindFunction, Detail: f.signature,
			Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: f.markdown()},
			TextEdit:      &protocol.TextEdit{Range: rng, NewText: f.name}})
	}
	if len(toks) == 0 || len(toks) == 1 && toks[0].off == start {
		for _, k := range keywords() {
			items = append(items, protocol.CompletionItem{Label: k, Kind: protocol.CompletionItemKindKeyword,
				TextEdit: &protocol.TextEdit{Range: rng, NewText: k}})
		}
	}
	return items
}

func closedString(s string) bool {
	return len(s) >= 2 && s[len(s)-1] == s[0] && (s[0] == '`' || s[len(s)-2] != '\\')
}

// fieldItems are the fields the schema defines at a node.
func fieldItems(n schema.Node, rng protocol.Range) []protocol.CompletionItem {
	var items []protocol.CompletionItem
	for i, f := range n.Fields() {
		items = append(items, protocol.CompletionItem{
			Label: f.Name, Kind: protocol.CompletionItemKindField, Detail: typeText(f),
			Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: aboutMarkdown(f)},
			SortText:      sortText(i),
			TextEdit:      &protocol.TextEdit{Range: rng, NewText: f.Name},
		})
	}
	return items
}

// sortText keeps the schema's order of fields in the editor's list.
func sortText(i int) string { return strconv.Itoa(1000 + i) }

func variableItems(sc *scope, text string, start, off int) []protocol.CompletionItem {
	rng := protocol.Range{Start: positionOf(text, start), End: positionOf(text, off)}
	seen := map[string]bool{"$": true}
	items := []protocol.CompletionItem{{Label: "$", Kind: protocol.CompletionItemKindVariable, Detail: "the template's data",
		TextEdit: &protocol.TextEdit{Range: rng, NewText: "$"}}}
	for i := len(sc.frames) - 1; i >= 0; i-- {
		for _, name := range slices.Sorted(maps.Keys(sc.frames[i].vars)) { // the same list every time
			if !seen[name] {
				seen[name] = true
				items = append(items, protocol.CompletionItem{Label: name, Kind: protocol.CompletionItemKindVariable,
					TextEdit: &protocol.TextEdit{Range: rng, NewText: name}})
			}
		}
	}
	return items
}

// partialItems are the templates of the variant a template may name.
func partialItems(a *analysis, name, text string, off int, typed string) []protocol.CompletionItem {
	rng := protocol.Range{Start: positionOf(text, off-len(typed)), End: positionOf(text, off)}
	var names []string
	for _, f := range a.templateFiles() {
		if f != name {
			names = append(names, f)
		}
	}
	for _, f := range a.templateFiles() {
		t, _ := a.sn.text(a.dir + f)
		names = append(names, defines(t)...)
	}
	slices.Sort(names)
	var items []protocol.CompletionItem
	for _, n := range slices.Compact(names) {
		kind := protocol.CompletionItemKindFile
		if !strings.HasSuffix(n, ".tmpl") {
			kind = protocol.CompletionItemKindModule
		}
		items = append(items, protocol.CompletionItem{Label: n, Kind: kind, TextEdit: &protocol.TextEdit{Range: rng, NewText: n}})
	}
	return items
}

// defines lists the names a template defines with define or block.
func defines(text string) []string {
	var out []string
	for _, act := range actions(text) {
		toks := tokens(text, act.body, act.bodyEnd)
		if len(toks) > 1 && toks[0].kind == tokWord && (toks[0].text == "define" || toks[0].text == "block") && toks[1].kind == tokString {
			if n, err := strconv.Unquote(toks[1].text); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// exampleCompletion offers the keys the schema defines where the cursor
// is in an example input, or the values an enum allows.
func exampleCompletion(a *analysis, text string, off int, isJSON bool) []protocol.CompletionItem {
	if a.v == nil {
		return nil
	}
	var place yamlPlace
	var ok bool
	// what a key becomes in the text, and what the edit replaces
	keyText := func(name string) string { return name + ": " }
	end := off
	if isJSON {
		var jp jsonPlace
		jp, ok = jsonPlaceAt(text, off)
		place, end = jp.yamlPlace, jp.end
		keyText = func(name string) string {
			if jp.colon {
				return strconv.Quote(name)
			}
			return strconv.Quote(name) + ": "
		}
	} else {
		place, ok = yamlPlaceAt(text, off)
	}
	if !ok {
		return nil
	}
	n := a.v.InputSchema()
	for _, step := range place.path {
		if step == "-" {
			n = n.Elem()
		} else {
			n, _ = n.Field(step)
		}
	}
	rng := protocol.Range{Start: positionOf(text, place.start), End: positionOf(text, end)}
	if !place.value {
		var items []protocol.CompletionItem
		for i, f := range n.Fields() {
			item := protocol.CompletionItem{Label: f.Name, Kind: protocol.CompletionItemKindProperty, Detail: typeText(f),
				Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: aboutMarkdown(f)},
				SortText:      sortText(i), TextEdit: &protocol.TextEdit{Range: rng, NewText: keyText(f.Name)}}
			if isJSON {
				item.FilterText = strconv.Quote(f.Name) // what is typed is matched with the quote
			}
			items = append(items, item)
		}
		return items
	}
	var about schema.About
	if place.key != "" {
		about = n.About(place.key)
	} else {
		about = n.Self()
	}
	values := slices.Clone(about.Enum)
	if len(values) == 0 && slices.Contains(about.Types, "boolean") {
		values = []string{"true", "false"}
	}
	var items []protocol.CompletionItem
	for i, v := range values {
		items = append(items, protocol.CompletionItem{Label: v, Kind: protocol.CompletionItemKindEnumMember, Detail: place.key,
			SortText: sortText(i), TextEdit: &protocol.TextEdit{Range: rng, NewText: v}})
	}
	return items
}

// manifestCompletion offers the manifest's keys where the cursor is in
// prompt.yaml, and the library's schemas after schema:.
func manifestCompletion(sn *snapshot, variant, text string, off int) []protocol.CompletionItem {
	ms, ok := loadManifestSchema(sn)
	if !ok {
		return nil
	}
	place, ok := yamlPlaceAt(text, off)
	if !ok {
		return nil
	}
	rng := protocol.Range{Start: positionOf(text, place.start), End: positionOf(text, off)}
	var items []protocol.CompletionItem
	if place.value {
		if len(place.path) == 0 && place.key == "schema" {
			for _, p := range sn.files.list("schemas") {
				name := strings.TrimSuffix(strings.TrimPrefix(p, "schemas/"), ".schema.json")
				if strings.HasSuffix(p, ".schema.json") {
					items = append(items, protocol.CompletionItem{Label: name, Kind: protocol.CompletionItemKindFile,
						TextEdit: &protocol.TextEdit{Range: rng, NewText: name}})
				}
			}
		}
		return items
	}
	for _, k := range ms.keys(ms.at(place.path)) {
		items = append(items, protocol.CompletionItem{Label: k[0], Kind: protocol.CompletionItemKindProperty,
			Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: k[1]},
			TextEdit:      &protocol.TextEdit{Range: rng, NewText: k[0] + ": "}})
	}
	slices.SortFunc(items, func(a, b protocol.CompletionItem) int { return strings.Compare(a.Label, b.Label) })
	return items
}
