package engine

import (
	"strconv"
	"text/template"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
)

// callWeight is the stack a template call holds beyond its own nesting, in
// levels of nesting: text/template's frames for the call and the action
// that makes it.
const callWeight = 4

// bound rewrites the copies of the trees of t's set that a render
// executes, so that no template can run past the render's limits however
// it loops or recurses:
//
//   - every template starts with {{ $_ := PromptsmithEnter NAME WEIGHT }}
//     and ends with {{ $_ := PromptsmithLeave WEIGHT }}, which count how
//     deeply templates call each other through template and include
//     together (text/template's own count starts again at every include)
//     and how much stack they hold, WEIGHT being how deeply the template's
//     blocks and pipelines nest;
//   - every range's body starts with {{ $_ := PromptsmithTick }}, which
//     checks the render's deadline at every iteration, even of a body that
//     calls nothing.
//
// The actions declare a variable so that they print nothing. The
// variant's own trees stay as parsed.
func bound(t *template.Template, env *funcs.Env) error {
	t.Funcs(env.Bounds())
	for _, x := range t.Templates() {
		if x.Tree == nil || x.Tree.Root == nil {
			continue
		}
		tree := x.Tree.Copy()
		weight := callWeight + nesting(tree.Root)
		pos := tree.Root.Pos
		name := &parse.StringNode{NodeType: parse.NodeString, Pos: pos, Quoted: strconv.Quote(x.Name()), Text: x.Name()}
		w := number(pos, weight)
		tree.Root.Nodes = append([]parse.Node{bounds(tree, pos, funcs.EnterFunc, name, w)}, tree.Root.Nodes...)
		tree.Root.Nodes = append(tree.Root.Nodes, bounds(tree, pos, funcs.LeaveFunc, number(pos, weight)))
		tickRanges(tree, tree.Root)
		if _, err := x.AddParseTree(x.Name(), tree); err != nil {
			return err
		}
	}
	return nil
}

func number(pos parse.Pos, n int) *parse.NumberNode {
	return &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(n), Text: strconv.Itoa(n)}
}

// bounds is the action {{ $_ := fn args... }}.
func bounds(tree *parse.Tree, pos parse.Pos, fn string, args ...parse.Node) *parse.ActionNode {
	id := parse.NewIdentifier(fn).SetTree(tree).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: append([]parse.Node{id}, args...)}
	v := &parse.VariableNode{NodeType: parse.NodeVariable, Pos: pos, Ident: []string{"$_promptsmith"}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos,
		Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Decl: []*parse.VariableNode{v}, Cmds: []*parse.CommandNode{cmd}}}
}

// tickRanges puts a PromptsmithTick at the start of the body of every
// range below n.
func tickRanges(tree *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			tickRanges(tree, c)
		}
	case *parse.IfNode:
		tickRanges(tree, n.List)
		tickRanges(tree, n.ElseList)
	case *parse.WithNode:
		tickRanges(tree, n.List)
		tickRanges(tree, n.ElseList)
	case *parse.RangeNode:
		tickRanges(tree, n.List)
		tickRanges(tree, n.ElseList)
		if n.List == nil {
			n.List = &parse.ListNode{NodeType: parse.NodeList, Pos: n.Pos}
		}
		n.List.Nodes = append([]parse.Node{bounds(tree, n.Pos, funcs.TickFunc)}, n.List.Nodes...)
	}
}

// nesting is how deeply blocks (if, with, range) and parenthesized
// pipelines nest below n: each level is a few frames of text/template's
// on the stack while it executes.
func nesting(n parse.Node) int {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return 0
		}
		most := 0
		for _, c := range n.Nodes {
			most = max(most, nesting(c))
		}
		return most
	case *parse.ActionNode:
		return nesting(n.Pipe)
	case *parse.TemplateNode:
		return nesting(n.Pipe)
	case *parse.IfNode:
		return 1 + max(nesting(n.Pipe), nesting(n.List), nesting(n.ElseList))
	case *parse.WithNode:
		return 1 + max(nesting(n.Pipe), nesting(n.List), nesting(n.ElseList))
	case *parse.RangeNode:
		return 1 + max(nesting(n.Pipe), nesting(n.List), nesting(n.ElseList))
	case *parse.PipeNode:
		if n == nil {
			return 0
		}
		most := 0
		for _, c := range n.Cmds {
			for _, a := range c.Args {
				most = max(most, nesting(a))
			}
		}
		return 2 + most // a pipeline's frames hold about twice a block's
	case *parse.ChainNode:
		return nesting(n.Node)
	}
	return 0
}
