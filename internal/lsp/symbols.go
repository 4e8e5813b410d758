package lsp

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"gopkg.in/yaml.v3"
)

// symbols outlines a template: the section it writes, its blocks and
// defines, and the markdown headings it writes as text; for prompt.yaml,
// its sections.
func (s *Server) symbols(ctx context.Context, uri protocol.DocumentURI) ([]protocol.DocumentSymbol, error) {
	p, text, _, ok := s.document(uri)
	if !ok {
		return []protocol.DocumentSymbol{}, nil
	}
	out := []protocol.DocumentSymbol{}
	switch kind, _ := classify(p); kind {
	case kindTemplate:
		children := templateSymbols(ctx, text)
		name := templateName(p)
		if sec, ok := strings.CutSuffix(name, ".md.tmpl"); ok && !strings.Contains(sec, "/") {
			whole := protocol.Range{Start: positionOf(text, 0), End: positionOf(text, len(text))}
			out = append(out, protocol.DocumentSymbol{Name: "section " + sec, Kind: protocol.SymbolKindModule,
				Range: whole, SelectionRange: protocol.Range{Start: whole.Start, End: whole.Start}, Children: children})
		} else {
			out = append(out, children...)
		}
	case kindManifest:
		out = append(out, manifestSymbols(text)...)
	}
	return out, ctx.Err()
}

// templateSymbols are a template's defines and blocks (with what they
// hold) and its headings.
func templateSymbols(ctx context.Context, text string) []protocol.DocumentSymbol {
	acts := actions(text)
	type open struct {
		sym    *protocol.DocumentSymbol // nil for if, with, range
		parent int
	}
	root := &protocol.DocumentSymbol{}
	stack := []open{{sym: root}}
	current := func() *protocol.DocumentSymbol {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].sym != nil {
				return stack[i].sym
			}
		}
		return root
	}
	x := newLineIndex(text)
	// headings: lines of text (not inside an action) that start with #;
	// lines and actions both come in order, so one pass finds which is in one
	next := 0
	inAction := func(off int) bool {
		for next < len(acts) && acts[next].end <= off {
			next++
		}
		return next < len(acts) && off >= acts[next].start
	}
	type event struct {
		off  int
		sym  *protocol.DocumentSymbol
		act  *action
		toks []token
	}
	var events []event
	for i := range acts {
		events = append(events, event{off: acts[i].start, act: &acts[i], toks: tokens(text, acts[i].body, acts[i].bodyEnd)})
	}
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(t, "#") && !inAction(off) {
			level := len(t) - len(strings.TrimLeft(t, "#"))
			if level <= 6 && (len(t) == level || t[level] == ' ') {
				r := protocol.Range{Start: x.position(off), End: x.position(off + len(t))}
				events = append(events, event{off: off, sym: &protocol.DocumentSymbol{Name: t, Kind: protocol.SymbolKindString, Range: r, SelectionRange: r}})
			}
		}
		off += len(line)
	}
	// in offset order: headings land in the define they stand in
	slices.SortStableFunc(events, func(a, b event) int { return a.off - b.off })
	for i, e := range events {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil // cancelled: the answer is an error, not these
		}
		if e.sym != nil {
			cur := current()
			cur.Children = append(cur.Children, *e.sym)
			continue
		}
		if len(e.toks) == 0 || e.toks[0].kind != tokWord {
			continue
		}
		switch e.toks[0].text {
		case "define", "block":
			name := ""
			if len(e.toks) > 1 {
				name, _ = strconv.Unquote(e.toks[1].text)
			}
			r := protocol.Range{Start: x.position(e.act.start), End: x.position(e.act.end)}
			sym := &protocol.DocumentSymbol{Name: e.toks[0].text + " " + name, Kind: protocol.SymbolKindFunction, Range: r, SelectionRange: r}
			stack = append(stack, open{sym: sym})
		case "if", "with", "range":
			stack = append(stack, open{})
		case "end":
			if len(stack) == 1 {
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.sym != nil {
				top.sym.Range.End = x.position(e.act.end)
				cur := current()
				cur.Children = append(cur.Children, *top.sym)
			}
		}
	}
	for len(stack) > 1 { // blocks left open: keep what they hold
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top.sym != nil {
			top.sym.Range.End = x.position(len(text))
			cur := current()
			cur.Children = append(cur.Children, *top.sym)
		}
	}
	return root.Children
}

// manifestSymbols are the sections a manifest lists, in order.
func manifestSymbols(text string) []protocol.DocumentSymbol {
	var root yaml.Node
	if yaml.Unmarshal([]byte(text), &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	var out []protocol.DocumentSymbol
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "sections" {
			continue
		}
		for _, item := range m.Content[i+1].Content {
			start := lineCol(text, item.Line, item.Column)
			end := protocol.Position{Line: start.Line, Character: start.Character + units(item.Value)}
			r := protocol.Range{Start: start, End: end}
			out = append(out, protocol.DocumentSymbol{Name: item.Value, Detail: item.Value + ".md.tmpl", Kind: protocol.SymbolKindModule, Range: r, SelectionRange: r})
		}
	}
	return out
}
