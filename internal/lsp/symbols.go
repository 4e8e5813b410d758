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
	x := newLineIndex(text)
	events := headingEvents(text, acts, x)
	for i := range acts {
		events = append(events, symbolEvent{off: acts[i].start, act: &acts[i], toks: tokens(text, acts[i].body, acts[i].bodyEnd)})
	}
	// in offset order: headings land in the define they stand in
	slices.SortStableFunc(events, func(a, b symbolEvent) int { return a.off - b.off })
	var o outline
	for i, e := range events {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil // cancelled: the answer is an error, not these
		}
		if e.sym != nil {
			o.add(*e.sym)
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
			o.open(&protocol.DocumentSymbol{Name: e.toks[0].text + " " + name, Kind: protocol.SymbolKindFunction, Range: r, SelectionRange: r})
		case "if", "with", "range":
			o.open(nil)
		case "end":
			if len(o.stack) > 0 {
				o.close(x.position(e.act.end))
			}
		}
	}
	for len(o.stack) > 0 { // blocks left open: keep what they hold
		o.close(x.position(len(text)))
	}
	return o.root.Children
}

// A symbolEvent is what the outline of a template meets at an offset:
// a heading (sym), or an action (act) with its tokens.
type symbolEvent struct {
	off  int
	sym  *protocol.DocumentSymbol
	act  *action
	toks []token
}

// headingEvents are the markdown headings of text: lines (not inside an
// action) that start with one to six # and then a space or nothing.
func headingEvents(text string, acts []action, x *lineIndex) []symbolEvent {
	// lines and actions both come in order, so one pass finds which is in one
	next := 0
	inAction := func(off int) bool {
		for next < len(acts) && acts[next].end <= off {
			next++
		}
		return next < len(acts) && off >= acts[next].start
	}
	var events []symbolEvent
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(t, "#") && !inAction(off) {
			level := len(t) - len(strings.TrimLeft(t, "#"))
			if level <= 6 && (len(t) == level || t[level] == ' ') {
				r := protocol.Range{Start: x.position(off), End: x.position(off + len(t))}
				events = append(events, symbolEvent{off: off, sym: &protocol.DocumentSymbol{Name: t, Kind: protocol.SymbolKindString, Range: r, SelectionRange: r}})
			}
		}
		off += len(line)
	}
	return events
}

// An outline is a template's tree of symbols as it is built: root holds
// what is outside every block, and stack the blocks open at the point
// reached, innermost last (nil for an if, with or range, which has no
// symbol of its own: what it holds goes to the block around it).
type outline struct {
	root  protocol.DocumentSymbol
	stack []*protocol.DocumentSymbol
}

// current is the symbol what comes next goes into.
func (o *outline) current() *protocol.DocumentSymbol {
	for i := len(o.stack) - 1; i >= 0; i-- {
		if o.stack[i] != nil {
			return o.stack[i]
		}
	}
	return &o.root
}

// add puts sym into the current symbol.
func (o *outline) add(sym protocol.DocumentSymbol) {
	cur := o.current()
	cur.Children = append(cur.Children, sym)
}

// open starts a block: sym, or nil for one without a symbol.
func (o *outline) open(sym *protocol.DocumentSymbol) {
	o.stack = append(o.stack, sym)
}

// close ends the innermost open block at end, adding its symbol (with
// all it holds) to the symbol around it.
func (o *outline) close(end protocol.Position) {
	top := o.stack[len(o.stack)-1]
	o.stack = o.stack[:len(o.stack)-1]
	if top != nil {
		top.Range.End = end
		o.add(*top)
	}
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
