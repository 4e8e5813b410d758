package problem

import (
	"sort"
	"strconv"
	"strings"
	"text/template/parse"
)

// Lines locates nodes in template texts as text/template's ErrorContext
// does (name:line:col, col from 0), from an index of each text's line
// starts built once. ErrorContext scans the text back to the line's start
// and writes out the node, so that locating every node of a long line, or
// every block of a deep nest, costs the square of the template's size;
// through Lines each costs a search of the index.
type Lines struct {
	text  func(parseName string) (string, bool)
	index map[string][]int
}

// NewLines locates positions in the texts text gives by their parse name
// (the file a template was parsed from). A text it does not give, or a nil
// text, is located by ErrorContext at the node's position alone.
func NewLines(text func(parseName string) (string, bool)) *Lines {
	return &Lines{text: text, index: map[string][]int{}}
}

// Loc is where n stands in tree, name:line:col with col from 0.
func (l *Lines) Loc(tree *parse.Tree, n parse.Node) string {
	return l.At(tree, n.Position())
}

// At is where pos stands in tree, name:line:col with col from 0.
func (l *Lines) At(tree *parse.Tree, pos parse.Pos) string {
	starts, ok := l.starts(tree)
	if !ok {
		loc, _ := tree.ErrorContext(&parse.TextNode{NodeType: parse.NodeText, Pos: pos})
		return loc
	}
	p := int(pos)
	i := sort.SearchInts(starts, p+1) - 1 // the last line starting at or before p
	col := p
	if i > 0 {
		col = p - starts[i]
	}
	return tree.ParseName + ":" + strconv.Itoa(i+1) + ":" + strconv.Itoa(col)
}

// Line is the line of n in tree, or 0 where text/template gives none.
func (l *Lines) Line(tree *parse.Tree, n parse.Node) int {
	loc := l.Loc(tree, n)
	parts := strings.Split(loc, ":")
	if len(parts) < 3 {
		return 0
	}
	line, _ := strconv.Atoi(parts[len(parts)-2])
	return line
}

func (l *Lines) starts(tree *parse.Tree) ([]int, bool) {
	if l == nil || l.text == nil || tree == nil {
		return nil, false
	}
	if s, ok := l.index[tree.ParseName]; ok {
		return s, true
	}
	text, ok := l.text(tree.ParseName)
	if !ok {
		return nil, false
	}
	s := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s = append(s, i+1)
		}
	}
	l.index[tree.ParseName] = s
	return s, true
}
