// Package parsetree walks the trees text/template parses, so that the
// engine's and lint's readings of a template (its size, its texts, the
// actions that print a field) descend it in one way, in the order it is
// written.
package parsetree

import "text/template/parse"

// Inspect calls visit for n, then, if visit returns true, for each of n's
// children in the order they are written: a list's nodes; an action's or
// a template call's pipeline; a block's pipeline, its list and its else
// list; a pipeline's arguments, command after command (the commands are
// not visited of their own); a chain's operand.
//
// visit sees the empty slots of the tree too, as nil nodes of their type
// (the else list of a block without one, the pipeline of a template call
// without one): they count in the size of a tree as text/template walks
// it. Empty says which nodes they are.
func Inspect(n parse.Node, visit func(parse.Node) bool) {
	if !visit(n) {
		return
	}
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				Inspect(c, visit)
			}
		}
	case *parse.ActionNode:
		Inspect(n.Pipe, visit)
	case *parse.TemplateNode:
		Inspect(n.Pipe, visit)
	case *parse.IfNode:
		inspectBranch(&n.BranchNode, visit)
	case *parse.WithNode:
		inspectBranch(&n.BranchNode, visit)
	case *parse.RangeNode:
		inspectBranch(&n.BranchNode, visit)
	case *parse.PipeNode:
		if n != nil {
			for _, c := range n.Cmds {
				for _, a := range c.Args {
					Inspect(a, visit)
				}
			}
		}
	case *parse.ChainNode:
		Inspect(n.Node, visit)
	}
}

func inspectBranch(b *parse.BranchNode, visit func(parse.Node) bool) {
	Inspect(b.Pipe, visit)
	Inspect(b.List, visit)
	Inspect(b.ElseList, visit)
}

// Empty reports whether n is an empty slot of a tree: a nil list or
// pipeline, which has no position and no text of its own.
func Empty(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.ListNode:
		return n == nil
	case *parse.PipeNode:
		return n == nil
	}
	return n == nil
}
