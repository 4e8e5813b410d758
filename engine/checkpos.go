package engine

import (
	"strconv"
	"strings"
	"text/template/parse"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith/internal/parsetree"
)

// manifestLine is the line of the manifest that holds the entry at path,
// keys of mappings and indexes of lists ("checks", "headings", 2), or 0.
// A failed check is placed at the line that declares it.
func manifestLine(raw []byte, path ...any) int {
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	n := doc.Content[0]
	for _, step := range path {
		switch step := step.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return 0
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == step {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return 0
			}
			n = next
		case int:
			if n.Kind != yaml.SequenceNode || step < 0 || step >= len(n.Content) {
				return 0
			}
			n = n.Content[step]
		}
	}
	return n.Line
}

// writtenAt names the place in a template whose text wrote the line of
// the prompt at offset ("templates/delegation/instructions.md.tmpl:1:1",
// a file:line:col an editor opens): a line of text of the section's
// template that is that line whole, or else one of any template of the
// variant (a partial). It is "" when none is: an action wrote it.
func (v *Variant) writtenAt(res *Result, offset int) string {
	if pos := v.textAt(res, offset); pos != "" {
		return v.dir + "/" + pos
	}
	return ""
}

// textAt is writtenAt's place, inside the variant's folder.
func (v *Variant) textAt(res *Result, offset int) string {
	if offset < 0 || offset > len(res.Text) {
		return ""
	}
	line := res.Text[offset:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if strings.TrimSpace(line) == "" {
		return ""
	}
	var first string
	for _, s := range res.Sections {
		if offset >= s.Start && offset < s.End {
			first = s.Name + ".md.tmpl"
		}
	}
	if t := v.tmpl.Lookup(first); first != "" && t != nil && t.Tree != nil {
		if pos := textLine(t.Tree, t.Tree.Root, line); pos != "" {
			return pos
		}
	}
	for _, t := range v.tmpl.Templates() {
		if t.Name() == first || t.Tree == nil {
			continue
		}
		if pos := textLine(t.Tree, t.Tree.Root, line); pos != "" {
			return pos
		}
	}
	return ""
}

// textLine finds line as a whole line of the first text node below n that
// holds it: its file, line and 1-based column.
func textLine(tree *parse.Tree, n parse.Node, line string) string {
	pos := ""
	parsetree.Inspect(n, func(n parse.Node) bool {
		if text, ok := n.(*parse.TextNode); ok && pos == "" {
			pos = wholeLine(tree, text, line)
		}
		return pos == ""
	})
	return pos
}

// wholeLine finds line as a whole line of a text node: its file, line
// and 1-based column.
func wholeLine(tree *parse.Tree, n *parse.TextNode, line string) string {
	text := string(n.Text)
	for from := 0; ; {
		i := strings.Index(text[from:], line)
		if i < 0 {
			return ""
		}
		i += from
		end := i + len(line)
		if (i == 0 || text[i-1] == '\n') && (end == len(text) || text[end] == '\n' || text[end] == '\r') {
			return nodeLine(tree, n, text[:i])
		}
		from = i + 1
	}
}

// nodeLine is the file:line:col of the text that follows before in node n.
func nodeLine(tree *parse.Tree, n parse.Node, before string) string {
	loc, _ := tree.ErrorContext(n) // name:line:col, col from 0
	parts := strings.Split(loc, ":")
	if len(parts) < 3 {
		return ""
	}
	line, _ := strconv.Atoi(parts[len(parts)-2])
	col, _ := strconv.Atoi(parts[len(parts)-1])
	name := strings.Join(parts[:len(parts)-2], ":")
	if nl := strings.Count(before, "\n"); nl > 0 {
		line += nl
		col = len(before) - strings.LastIndexByte(before, '\n') - 1
	} else {
		col += len(before)
	}
	return name + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col+1)
}
