package engine

import (
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/parsetree"
)

// callWeight is the stack a template call holds beyond its own nesting, in
// levels of nesting: text/template's frames for the call and the action
// that makes it.
const callWeight = 4

// bound rewrites the copies of the trees of t's set that a render
// executes, so that no template can run past the render's limits however
// it loops or recurses:
//
//   - every template starts with {{ $_ := PromptsmithEnterN }} and ends
//     with {{ $_ := PromptsmithLeaveN }} (N its number), which count how
//     deeply templates call each other through template and include
//     together (text/template's own count starts again at every include)
//     and how much stack they hold, by how deeply the template's blocks
//     and pipelines nest;
//   - every range's pipeline ends in | PromptsmithSeq (PromptsmithSeq2
//     with two variables), which gives what it iterates over as an
//     iterator that checks the render's deadline as it goes, even for a
//     body that calls nothing.
//
// The actions declare a variable so that they print nothing. The
// variant's own trees stay as parsed.
func bound(t *template.Template, env *funcs.Env) error {
	var names []string
	var weights []int
	var trees []*parse.Tree
	var targets []*template.Template
	for _, x := range t.Templates() {
		if x.Tree == nil || x.Tree.Root == nil {
			continue
		}
		tree := x.Tree.Copy()
		names = append(names, x.Name())
		weights = append(weights, callWeight+nesting(tree.Root))
		trees = append(trees, tree)
		targets = append(targets, x)
	}
	var ranges []funcs.Range
	for i, tree := range trees {
		pos := tree.Root.Pos
		n := strconv.Itoa(i)
		tree.Root.Nodes = append([]parse.Node{declare(tree, pos, funcs.EnterFunc+n)}, tree.Root.Nodes...)
		tree.Root.Nodes = append(tree.Root.Nodes, declare(tree, pos, funcs.LeaveFunc+n))
		seqRanges(tree, tree.Root, &ranges)
		if _, err := targets[i].AddParseTree(names[i], tree); err != nil {
			return err
		}
	}
	t.Funcs(env.Bounds(names, weights, ranges))
	return nil
}

// declare is the action {{ $_promptsmith := fn }}.
func declare(tree *parse.Tree, pos parse.Pos, fn string) *parse.ActionNode {
	id := parse.NewIdentifier(fn).SetTree(tree).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
	v := &parse.VariableNode{NodeType: parse.NodeVariable, Pos: pos, Ident: []string{"$_promptsmith"}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos,
		Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Decl: []*parse.VariableNode{v}, Cmds: []*parse.CommandNode{cmd}}}
}

// seqRanges ends the pipeline of every range below n in PromptsmithSeqN,
// or PromptsmithSeq2N for a range with two variables, N its number in
// ranges, which records the nodes of its body and its pipeline as
// written. It returns the nodes below n as nodes counts them once the
// ranges' pipelines are rewritten: counted as it goes, so that ranges
// nested in ranges cost the nodes once, not once per enclosing range.
func seqRanges(tree *parse.Tree, n parse.Node, ranges *[]funcs.Range) int {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return 1
		}
		count := 1
		for _, c := range n.Nodes {
			count += seqRanges(tree, c, ranges)
		}
		return count
	case *parse.IfNode:
		return 1 + nodes(n.Pipe) + seqRanges(tree, n.List, ranges) + seqRanges(tree, n.ElseList, ranges)
	case *parse.WithNode:
		return 1 + nodes(n.Pipe) + seqRanges(tree, n.List, ranges) + seqRanges(tree, n.ElseList, ranges)
	case *parse.RangeNode:
		body := seqRanges(tree, n.List, ranges)
		count := 1 + body + seqRanges(tree, n.ElseList, ranges)
		fn := funcs.SeqFunc
		if len(n.Pipe.Decl) > 1 {
			fn = funcs.Seq2Func
		}
		fn += strconv.Itoa(len(*ranges))
		var written []string
		for _, c := range n.Pipe.Cmds {
			written = append(written, c.String())
		}
		*ranges = append(*ranges, funcs.Range{Body: body, Pipe: strings.Join(written, " | ")})
		pos := n.Pipe.Position()
		if k := len(n.Pipe.Cmds); k > 0 {
			pos = n.Pipe.Cmds[k-1].Position()
		}
		id := parse.NewIdentifier(fn).SetTree(tree).SetPos(pos)
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}})
		return count + nodes(n.Pipe)
	}
	return nodes(n)
}

// nodes counts the nodes below n: what one iteration of a range over n
// may cost at most, ranges and calls inside aside.
func nodes(n parse.Node) int {
	count := 0
	parsetree.Inspect(n, func(parse.Node) bool {
		count++
		return true
	})
	return count
}

// rangeWeight is the stack a range holds while its body runs, in levels
// of nesting: every range iterates through the iterator bound gives it,
// whose frames (reflect's, the iterator's, text/template's yield) hold
// about four times an if's (measured: 9.5 KB a level against 2.6 KB).
// 40000 nested ranges held 600 MB of stack under the frames bound, and
// the collector scanning it slowed a server's renders past their
// deadline.
const rangeWeight = 4

// nesting is how deeply blocks (if, with, range) and parenthesized
// pipelines nest below n: each level is a few frames of text/template's
// on the stack while it executes.
func nesting(n parse.Node) int {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return 0
		}
		return deepest(n.Nodes...)
	case *parse.ActionNode:
		return nesting(n.Pipe)
	case *parse.TemplateNode:
		return nesting(n.Pipe)
	case *parse.IfNode:
		return 1 + deepest(n.Pipe, n.List, n.ElseList)
	case *parse.WithNode:
		return 1 + deepest(n.Pipe, n.List, n.ElseList)
	case *parse.RangeNode:
		return rangeWeight + deepest(n.Pipe, n.List, n.ElseList)
	case *parse.PipeNode:
		if n == nil {
			return 0
		}
		most := 0
		for _, c := range n.Cmds {
			most = max(most, deepest(c.Args...))
		}
		return 2 + most // a pipeline's frames hold about twice a block's
	case *parse.ChainNode:
		return nesting(n.Node)
	}
	return 0
}

// deepest is the nesting of the most deeply nested of nodes.
func deepest(nodes ...parse.Node) int {
	most := 0
	for _, n := range nodes {
		most = max(most, nesting(n))
	}
	return most
}
