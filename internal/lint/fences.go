package lint

import (
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"
)

// Code fences: a ``` (or ~~~) line a section's template opens and never
// closes turns the rest of the prompt into code, the sections after it
// too. fences reads the lines of the template's text, where they start a
// line of the output, as markdown does (CommonMark): a fence of three or
// more backticks or tildes opens a code block, which a fence of the same
// character, at least as long and with nothing after it, closes.
//
// The walk follows the template's actions: an if or a with whose branches
// open a fence each (```json or ```yaml) leaves it open after them, as a
// range whose body does; what an action prints is not read (a fence built
// with the fence function is the author's to close), except the partials
// the template includes by name, which are read in place.

// fenceState is where a walk stands in the markdown of a template.
type fenceState struct {
	// lineStart says the output is at the start of a line.
	lineStart bool
	open      bool
	char      byte
	length    int
	// tree and pos are where the open fence is.
	tree *parse.Tree
	pos  parse.Pos
}

// fences warns of a code fence a section's template opens and leaves
// open.
func (w *walker) fences(tree *parse.Tree) {
	st := w.fenceList(tree, tree.Root, fenceState{lineStart: true}, map[string]bool{})
	if !st.open {
		return
	}
	loc := w.lines.At(st.tree, st.pos)
	w.add(Finding{Position: w.t.Dir + "/" + oneBased(loc), Severity: Warning, Kind: KindLint,
		Message: fmt.Sprintf("the code fence %s opened here is never closed in %s: the rest of the prompt would be code; close it with a line %s",
			strings.Repeat(string(st.char), st.length), tree.ParseName, strings.Repeat(string(st.char), st.length))})
}

// oneBased writes the column of text/template's name:line:col, counted
// from 0, from 1.
func oneBased(loc string) string {
	i := strings.LastIndexByte(loc, ':')
	if c, err := strconv.Atoi(loc[i+1:]); i >= 0 && err == nil {
		return loc[:i+1] + strconv.Itoa(c+1)
	}
	return loc
}

func (w *walker) fenceList(tree *parse.Tree, l *parse.ListNode, st fenceState, in map[string]bool) fenceState {
	if l == nil {
		return st
	}
	for _, n := range l.Nodes {
		st = w.fenceNode(tree, n, st, in)
	}
	return st
}

func (w *walker) fenceNode(tree *parse.Tree, n parse.Node, st fenceState, in map[string]bool) fenceState {
	switch n := n.(type) {
	case *parse.TextNode:
		return fenceText(tree, n, st)
	case *parse.ActionNode:
		if name, ok := includedName(n.Pipe); ok {
			return w.fencePartial(name, st, in)
		}
		if len(n.Pipe.Decl) == 0 {
			st.lineStart = false // it prints something, of which nothing is known
		}
	case *parse.TemplateNode:
		return w.fencePartial(n.Name, st, in)
	case *parse.IfNode:
		return joinFences(w.fenceList(tree, n.List, st, in), w.fenceList(tree, n.ElseList, st, in))
	case *parse.WithNode:
		return joinFences(w.fenceList(tree, n.List, st, in), w.fenceList(tree, n.ElseList, st, in))
	case *parse.RangeNode:
		return joinFences(w.fenceList(tree, n.List, st, in), w.fenceList(tree, n.ElseList, st, in))
	case *parse.ListNode:
		return w.fenceList(tree, n, st, in)
	}
	return st
}

// joinFences is where a walk stands after two branches: with the fence
// one of them left open, if one did.
func joinFences(a, b fenceState) fenceState {
	if !a.open && b.open {
		a, b = b, a
	}
	a.lineStart = a.lineStart && b.lineStart
	return a
}

// fencePartial reads a template included by name in place, once on any
// one path through the templates.
func (w *walker) fencePartial(name string, st fenceState, in map[string]bool) fenceState {
	t := w.t.Set.Lookup(name)
	if t == nil || t.Tree == nil || in[name] {
		st.lineStart = false
		return st
	}
	in[name] = true
	defer delete(in, name)
	return w.fenceList(t.Tree, t.Tree.Root, st, in)
}

// includedName is the name of {{ include "NAME" ... }}, printed as it is.
func includedName(p *parse.PipeNode) (string, bool) {
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) < 2 {
		return "", false
	}
	id, ok := p.Cmds[0].Args[0].(*parse.IdentifierNode)
	name, ok2 := p.Cmds[0].Args[1].(*parse.StringNode)
	if !ok || !ok2 || id.Ident != "include" {
		return "", false
	}
	return name.Text, true
}

// fenceText reads the lines of a text.
func fenceText(tree *parse.Tree, n *parse.TextNode, st fenceState) fenceState {
	text := string(n.Text)
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		line := text[off:]
		if end >= 0 {
			line = text[off : off+end]
		}
		if st.lineStart {
			if ch, length, info, ok := fenceLine(line); ok {
				switch {
				case !st.open:
					st = fenceState{open: true, char: ch, length: length, tree: tree, pos: n.Pos + parse.Pos(off+strings.IndexByte(line, ch))}
				case ch == st.char && length >= st.length && strings.TrimSpace(info) == "":
					st.open = false
				}
			}
		}
		if end < 0 {
			st.lineStart = false
			break
		}
		st.lineStart = true
		off += end + 1
	}
	return st
}

// fenceLine reads a line as a code fence: its character, its length and
// what follows it (a language, for an opening fence).
func fenceLine(line string) (ch byte, length int, info string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, "", false
	}
	ch = s[0]
	for length < len(s) && s[length] == ch {
		length++
	}
	if length < 3 || (ch == '`' && strings.ContainsRune(s[length:], '`')) {
		return 0, 0, "", false
	}
	return ch, length, strings.TrimRight(s[length:], "\r"), true
}
