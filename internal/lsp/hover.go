package lsp

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/internal/schema"
)

// hover explains what is under the cursor in a template: a field with what
// its schema says of it, a function with its catalog entry and example.
func (s *Server) hover(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) (*protocol.Hover, error) {
	p, text, sn, ok := s.document(uri)
	if !ok {
		return nil, nil
	}
	kind, variant := classify(p)
	if kind == kindExample {
		about, start, end, ok := s.exampleKey(sn, variant, text, pos)
		if !ok {
			return nil, ctx.Err()
		}
		rng := protocol.Range{Start: start, End: end}
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: aboutMarkdown(about)}, Range: &rng}, ctx.Err()
	}
	if kind == kindManifest {
		return manifestHover(sn, text, pos), ctx.Err()
	}
	if kind != kindTemplate {
		return nil, nil
	}
	a := s.analysis(sn, variant)
	at, ok := a.at(templateName(p), text, offsetOf(text, pos))
	if !ok {
		return nil, ctx.Err()
	}
	var md string
	switch {
	case at.field != "":
		about := at.parent.About(at.field)
		if about.Position == "" && len(about.Types) == 0 {
			if at.root && slices.Contains(a.extras(), at.field) {
				md = fmt.Sprintf("**%s**: added by the engine from the manifest (an id, or what a budget cut)", at.field)
			}
			break
		}
		md = aboutMarkdown(about)
	case at.tok.kind == tokWord:
		for _, f := range functions() {
			if f.name == at.tok.text {
				md = f.markdown()
			}
		}
	case at.partial != "":
		md = fmt.Sprintf("template `%s` of variant %s", at.partial, variant)
	}
	if md == "" {
		return nil, ctx.Err()
	}
	rng := protocol.Range{Start: positionOf(text, at.start), End: positionOf(text, at.end)}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &rng}, ctx.Err()
}

// place is what the cursor is on in a template.
type place struct {
	tok        token
	start, end int // what it covers
	// A field: the name, and the schema of what it is read from.
	field  string
	parent schema.Node
	root   bool // read from the template's data at its top
	// A template's name after template or include.
	partial string
}

// at finds what the cursor is on in a template.
func (a *analysis) at(name, text string, off int) (place, bool) {
	act, ok := cursorAction(text, off)
	if !ok {
		return place{}, false
	}
	toks := tokens(text, act.body, act.bodyEnd)
	for i, t := range toks {
		if off < t.off || off > t.off+len(t.text) || off == t.off+len(t.text) && off < len(text) && isNameByte(text[off]) {
			continue
		}
		pl := place{tok: t, start: t.off, end: t.off + len(t.text)}
		switch t.kind {
		case tokField:
			rel := off - t.off
			segStart := strings.LastIndexByte(t.text[:min(rel, len(t.text))], '.')
			if segStart < 0 {
				return pl, true // a variable
			}
			segEnd := len(t.text)
			if k := strings.IndexByte(t.text[segStart+1:], '.'); k >= 0 {
				segEnd = segStart + 1 + k
			}
			pl.field = t.text[segStart+1 : segEnd]
			pl.start, pl.end = t.off+segStart+1, t.off+segEnd
			sc := a.scopeAt(name, text, act.start)
			chain := t.text[:segStart]
			switch {
			case chain == "":
				pl.parent = sc.dot()
				pl.root = len(sc.frames) == 1
			case chain == "$":
				pl.parent, pl.root = sc.variable("$"), !sc.inDefine()
			default:
				pl.parent = a.chain(sc, chain)
			}
			if pl.field == "" {
				return place{}, false
			}
			return pl, true
		case tokString:
			if i > 0 && toks[i-1].kind == tokWord && (toks[i-1].text == "template" || toks[i-1].text == "include") {
				pl.partial, _ = strconv.Unquote(t.text)
			}
			return pl, true
		}
		return pl, true
	}
	return place{}, false
}

// typeText is a field's type as completion shows it beside the name.
func typeText(a schema.About) string {
	t := strings.Join(a.Types, " | ")
	if t == "" {
		t = "any"
	}
	if !a.Required {
		t += " (optional)"
	}
	return t
}

// aboutMarkdown is what the schema says of a field, as hover shows it.
func aboutMarkdown(a schema.About) string {
	var b strings.Builder
	req := "optional"
	if a.Required {
		req = "required"
	}
	t := strings.Join(a.Types, " | ")
	if t == "" {
		t = "any"
	}
	fmt.Fprintf(&b, "**%s** `%s`, %s", a.Name, t, req)
	if a.Description != "" {
		b.WriteString("\n\n" + a.Description)
	}
	if a.HasDefault {
		fmt.Fprintf(&b, "\n\nDefault: `%s`", a.Default)
	}
	if len(a.Enum) > 0 {
		fmt.Fprintf(&b, "\n\nOne of: `%s`", strings.Join(a.Enum, "`, `"))
	}
	return b.String()
}

// exampleKey is what the schema says of the key under the cursor in an
// example input, and where the key stands.
func (s *Server) exampleKey(sn *snapshot, variant, text string, pos protocol.Position) (about schema.About, start, end protocol.Position, ok bool) {
	a := s.analysis(sn, variant)
	if a.v == nil {
		return about, pos, pos, false
	}
	off := offsetOf(text, pos)
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	path, ok := yamlKeyAt(text, int(pos.Line)+1, off-lineStart+1)
	if !ok {
		return about, pos, pos, false
	}
	n := a.v.InputSchema()
	for _, step := range path[:len(path)-1] {
		if step == "-" {
			n = n.Elem()
		} else {
			n, _ = n.Field(step)
		}
	}
	key := path[len(path)-1]
	if about = n.About(key); about.Position == "" {
		return about, pos, pos, false
	}
	// the key's word around the cursor
	from, to := off, off
	for from > lineStart && isNameByte(text[from-1]) {
		from--
	}
	for to < len(text) && isNameByte(text[to]) {
		to++
	}
	return about, positionOf(text, from), positionOf(text, to), true
}

// manifestHover says what a key of prompt.yaml is, from the manifest's
// schema.
func manifestHover(sn *snapshot, text string, pos protocol.Position) *protocol.Hover {
	ms, ok := loadManifestSchema(sn)
	if !ok {
		return nil
	}
	off := offsetOf(text, pos)
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	path, ok := yamlKeyAt(text, int(pos.Line)+1, off-lineStart+1)
	if !ok {
		return nil
	}
	key := path[len(path)-1]
	for _, k := range ms.keys(ms.at(path[:len(path)-1])) {
		if k[0] == key && k[1] != "" {
			return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: fmt.Sprintf("**%s**\n\n%s", key, k[1])}}
		}
	}
	return nil
}
