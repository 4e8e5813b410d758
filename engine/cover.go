package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/problem"
)

// Branch coverage: which ways through its templates a variant's renders
// take. A branch is
//
//   - the body of an if, a with or a range (BranchIf, BranchWith,
//     BranchRange), with each if and with of an else-if (else-with) chain a
//     branch of its own;
//   - an else: the {{ else }} of an if, a with or a range (BranchElse,
//     BranchRangeElse), or, where an if or a with has none, the empty else
//     that runs when its condition is false (BranchNoElse): an if that no
//     render found false is a case no example shows, the prompt without what
//     the if adds. A range without an else has no such branch: running its
//     body zero times writes nothing a reviewer could read.
//
// A render records its branches only when asked to (Cover): it then runs a
// copy of the templates with a call at the start of every branch that marks
// it taken. Plain renders run the templates as parsed and pay nothing.

// The kinds of Branch.
const (
	BranchIf        = "if"
	BranchWith      = "with"
	BranchRange     = "range"
	BranchElse      = "else"       // the {{ else }} of an if or a with
	BranchNoElse    = "empty else" // an if or a with without else, its condition false
	BranchRangeElse = "range else" // the {{ else }} of a range: the list was empty
)

// Branch is one branch of a variant's templates.
type Branch struct {
	// ID numbers the variant's branches from 0, in the order of Branches.
	ID int `json:"id"`
	// File is the template file that holds it, inside the variant's
	// folder ("goals.md.tmpl", "modes/code.md.tmpl").
	File string `json:"file"`
	// Position is where the branch starts, file:line:col (columns count
	// bytes from 1): the condition of an if, with or range, and of the
	// else-if or else-with that continues a chain; the first byte after
	// {{ else }}; for an empty else, the condition it is the else of.
	Position string `json:"position"`
	Kind     string `json:"kind"`
	// Condition is the action of the if, with or range the branch belongs
	// to, as text/template writes it back: "if hasKey . \"x\"".
	Condition string `json:"condition"`
}

// String says what the branch is: "the else of {{if .admin}}".
func (b Branch) String() string {
	switch b.Kind {
	case BranchElse, BranchRangeElse:
		return "the else of {{" + b.Condition + "}}"
	case BranchNoElse:
		return "the implicit else of {{" + b.Condition + "}}, where it is false and writes nothing"
	}
	return "the body of {{" + b.Condition + "}}"
}

// branchSite is a branch found in a parse tree: its kind, its condition,
// where it is, and the list that runs when it is taken (created, for an
// empty else, when the tree is instrumented).
type branchSite struct {
	kind string
	cond *parse.PipeNode
	pos  parse.Pos
	list **parse.ListNode
	// keyword is the control's: if, with or range.
	keyword string
}

// branchSites lists the branches of a tree in the order they are written.
func branchSites(l *parse.ListNode) []branchSite {
	var out []branchSite
	var walk func(l *parse.ListNode)
	control := func(kind string, n *parse.BranchNode) {
		out = append(out, branchSite{kind: kind, cond: n.Pipe, pos: n.Pipe.Position(), list: &n.List, keyword: kind})
		walk(n.List)
		switch {
		case kind == BranchRange && n.ElseList != nil:
			out = append(out, branchSite{kind: BranchRangeElse, cond: n.Pipe, pos: n.ElseList.Position(), list: &n.ElseList, keyword: kind})
			walk(n.ElseList)
		case kind == BranchRange:
		case n.ElseList == nil:
			out = append(out, branchSite{kind: BranchNoElse, cond: n.Pipe, pos: n.Pipe.Position(), list: &n.ElseList, keyword: kind})
		case chained(n.ElseList, kind):
			// {{ else if }} and {{ else with }}: the else runs exactly when
			// the next condition is evaluated, whose branches cover it.
			walk(n.ElseList)
		default:
			out = append(out, branchSite{kind: BranchElse, cond: n.Pipe, pos: n.ElseList.Position(), list: &n.ElseList, keyword: kind})
			walk(n.ElseList)
		}
	}
	walk = func(l *parse.ListNode) {
		if l == nil {
			return
		}
		for _, n := range l.Nodes {
			switch n := n.(type) {
			case *parse.IfNode:
				control(BranchIf, &n.BranchNode)
			case *parse.WithNode:
				control(BranchWith, &n.BranchNode)
			case *parse.RangeNode:
				control(BranchRange, &n.BranchNode)
			case *parse.ListNode:
				walk(n)
			}
		}
	}
	walk(l)
	return out
}

// chained reports whether an else list is an else-if (of an if) or an
// else-with (of a with): one node, of the same kind.
func chained(l *parse.ListNode, kind string) bool {
	if len(l.Nodes) != 1 {
		return false
	}
	switch l.Nodes[0].(type) {
	case *parse.IfNode:
		return kind == BranchIf
	case *parse.WithNode:
		return kind == BranchWith
	}
	return false
}

// coveredTemplates are the templates of a set whose branches count, sorted
// by name: every template parsed from a file or a manifest's condition.
func coveredTemplates(t *template.Template) []*template.Template {
	var out []*template.Template
	for _, x := range t.Templates() {
		if x.Tree != nil && x.Tree.Root != nil {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b *template.Template) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Branches lists every branch of the variant's templates, by file and
// position.
func (v *Variant) Branches() []Branch {
	var out []Branch
	for _, t := range coveredTemplates(v.tmpl) {
		for _, s := range branchSites(t.Tree.Root) {
			file, pos := v.branchPosition(t.Tree, s.pos)
			out = append(out, Branch{File: file, Position: pos, Kind: s.kind, Condition: s.keyword + " " + s.cond.String()})
		}
	}
	for i := range out {
		out[i].ID = i
	}
	return out
}

// branchPosition is the file and file:line:col of a byte offset of a tree,
// its column counted from 1.
func (v *Variant) branchPosition(tree *parse.Tree, at parse.Pos) (file, pos string) {
	loc, _ := tree.ErrorContext(&parse.TextNode{NodeType: parse.NodeText, Pos: at})
	// loc is name:line:col, the column from 0; a manifest's condition is
	// named "prompt.yaml checks.forbid[0].when".
	rest, col, ok1 := cutLast(loc, ":")
	name, line, ok2 := cutLast(rest, ":")
	c, err := strconv.Atoi(col)
	if !ok1 || !ok2 || err != nil {
		return tree.ParseName, v.dir + "/" + loc
	}
	return name, fmt.Sprintf("%s/%s:%s:%d", v.dir, name, line, c+1)
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Coverage gathers the branches that the renders of one variant take. It
// is safe for renders running at the same time.
type Coverage struct {
	v        *Variant
	branches []Branch
	taken    []atomic.Bool
	// pool holds copies of the templates that record into this Coverage,
	// for its renders to reuse.
	pool execPool
}

// NewCoverage starts gathering the branches the variant's renders take:
// pass Cover(c) to each render.
func (v *Variant) NewCoverage() *Coverage {
	b := v.Branches()
	return &Coverage{v: v, branches: b, taken: make([]atomic.Bool, len(b))}
}

// Cover records in c the branches the render takes; c must be the
// coverage of the variant rendered. A render fitted to a budget
// (FitTokens) records the branches of the prompt it returns, not those of
// the other renders its fit tried: a branch counts as covered only when a
// prompt someone reviews shows it. A render that fails records the
// branches it took before it failed.
func Cover(c *Coverage) RenderOption {
	return func(o *renderOptions) { o.cover = c }
}

// Variant is the name of the variant covered.
func (c *Coverage) Variant() string { return c.v.name }

// Branches lists the variant's branches.
func (c *Coverage) Branches() []Branch { return slices.Clone(c.branches) }

// Taken reports whether a render took the branch of that ID.
func (c *Coverage) Taken(id int) bool { return id >= 0 && id < len(c.taken) && c.taken[id].Load() }

// Uncovered lists the branches no render took, by file and position.
func (c *Coverage) Uncovered() []Branch {
	var out []Branch
	for _, b := range c.branches {
		if !c.Taken(b.ID) {
			out = append(out, b)
		}
	}
	slices.SortStableFunc(out, func(a, b Branch) int { return problem.ComparePositions(a.Position, b.Position) })
	return out
}

// Counts is how many branches renders took, of how many there are.
func (c *Coverage) Counts() (covered, total int) {
	for i := range c.taken {
		if c.taken[i].Load() {
			covered++
		}
	}
	return covered, len(c.taken)
}

// Percent is the share of the branches renders took, 100 for templates
// without branches.
func (c *Coverage) Percent() float64 {
	covered, total := c.Counts()
	return Percent(covered, total)
}

// Percent is covered of total as a percentage, 100 when total is 0.
func Percent(covered, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(covered) / float64(total)
}

// coverBranch is the name under which instrumented copies call the
// function that marks a branch taken. It cannot clash with a function of
// the catalog: those are lower case.
const coverBranch = "PromptsmithCoverBranch"

// acquireFor gives a render its copy of the templates: a plain one, or,
// for a render that records its branches, one that does.
func (v *Variant) acquireFor(ctx context.Context, ro renderOptions) (*execSet, error) {
	c := ro.cover
	if c == nil {
		return v.acquire(ctx)
	}
	if c.v != v {
		return nil, &Error{Kind: KindUsage, Variant: v.name,
			Reason: fmt.Sprintf("the coverage given is variant %s's, not %s's: make one with Variant.NewCoverage", c.v.name, v.name)}
	}
	return c.pool.take(ctx, c.newExecSet)
}

// releaseFor returns a copy of the templates to where acquireFor took it.
func (v *Variant) releaseFor(set *execSet, ro renderOptions) {
	c := ro.cover
	if c == nil || c.v != v {
		v.release(set)
		return
	}
	for _, id := range set.marks.release() {
		c.taken[id].Store(true)
	}
	c.pool.put(set)
}

// newExecSet is a copy of the variant's templates with, at the start of
// every branch, {{ PromptsmithCoverBranch ID }}, which marks the branch
// taken and writes nothing. The copies' trees are copied again: the
// variant's own, and those of plain copies, stay as they are.
func (c *Coverage) newExecSet() (*execSet, error) {
	set, err := c.v.newExecSet()
	if err != nil {
		return nil, err
	}
	marks := &branchMarks{seen: make([]bool, len(c.taken))}
	set.marks = marks
	set.tmpl.Funcs(template.FuncMap{coverBranch: func(id int) string {
		marks.mark(id)
		return ""
	}})
	id := 0
	for _, t := range coveredTemplates(set.tmpl) {
		tree := t.Tree.Copy()
		for _, s := range branchSites(tree.Root) {
			mark := coverCall(tree, s.pos, id)
			if *s.list == nil {
				*s.list = &parse.ListNode{NodeType: parse.NodeList, Pos: s.pos}
			}
			l := *s.list
			l.Nodes = append([]parse.Node{mark}, l.Nodes...)
			id++
		}
		if _, err := t.AddParseTree(t.Name(), tree); err != nil {
			return nil, &Error{Kind: KindInternal, Variant: c.v.name, Reason: "cannot copy the templates: " + err.Error(), Err: err}
		}
	}
	if id != len(c.taken) {
		return nil, &Error{Kind: KindInternal, Variant: c.v.name,
			Reason: fmt.Sprintf("the copy of the templates has %d branches, the variant %d", id, len(c.taken))}
	}
	return set, nil
}

// coverCall is the action {{ PromptsmithCoverBranch id }}.
func coverCall(tree *parse.Tree, pos parse.Pos, id int) *parse.ActionNode {
	fn := parse.NewIdentifier(coverBranch).SetTree(tree).SetPos(pos)
	num := &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(id), Text: strconv.Itoa(id)}
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{fn, num}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}}
}

// branchMarks are the branches one copy of the templates took since they
// were last taken from it. A fit runs the templates once per cut it tries;
// each run's marks go with its Result (finish), and the render keeps those
// of the Result it returns (keep). What a render's copy holds when it is
// released, those and what ran after (the checks' when: conditions, or
// the run that failed), is what it records. The methods do nothing on a
// plain copy, whose marks are nil.
type branchMarks struct {
	seen []bool // by branch ID: in ids
	ids  []int
	// byResult are the marks of each run of the render, until it keeps one.
	byResult map[*Result][]int
}

func (m *branchMarks) mark(id int) {
	if id >= 0 && id < len(m.seen) && !m.seen[id] {
		m.seen[id] = true
		m.ids = append(m.ids, id)
	}
}

// take returns the marks and clears them.
func (m *branchMarks) take() []int {
	if m == nil {
		return nil
	}
	ids := m.ids
	for _, id := range ids {
		m.seen[id] = false
	}
	m.ids = nil
	return ids
}

// finish files the marks of the run that wrote res under it.
func (m *branchMarks) finish(res *Result) {
	if m == nil {
		return
	}
	if m.byResult == nil {
		m.byResult = map[*Result][]int{}
	}
	m.byResult[res] = m.take()
}

// keep makes the marks of the run that wrote res the render's, and forgets
// those of its other runs.
func (m *branchMarks) keep(res *Result) {
	if m == nil {
		return
	}
	m.take()
	for _, id := range m.byResult[res] {
		m.mark(id)
	}
	clear(m.byResult)
}

// release returns what the render records, and forgets the rest.
func (m *branchMarks) release() []int {
	if m == nil {
		return nil
	}
	clear(m.byResult)
	return m.take()
}
