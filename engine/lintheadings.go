package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/lint"
	"github.com/promptsmith/promptsmith/internal/parsetree"
)

// headingFindings are the headings checks.headings requires that no
// template of the variant can write: their text is nowhere in the
// templates, as text or as a string in an action, and no template writes a
// heading whose text an action gives ("## {{ .title }}"). Every example
// fails the check; lint says it before any runs, at the manifest's line.
func (v *Variant) headingFindings() []lint.Finding {
	want := v.manifest.Checks.Headings
	if len(want) == 0 || v.tmpl == nil {
		return nil
	}
	texts, dynamic := templateTexts(v.tmpl.Templates())
	if dynamic {
		return nil
	}
	var out []lint.Finding
	for i, h := range want {
		text := strings.TrimSpace(strings.TrimLeft(h, "#"))
		if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, text) }) {
			continue
		}
		pos := v.dir + "/prompt.yaml"
		if line := manifestLine(v.raw, "checks", "headings", i); line > 0 {
			pos += ":" + strconv.Itoa(line)
		}
		where := "the template of the section it belongs in"
		if i > 0 {
			where = fmt.Sprintf("the template that writes %q, after it, or the next section's", want[i-1])
		}
		out = append(out, lint.Finding{Position: pos, Severity: lint.Error, Kind: lint.KindLint,
			Message: fmt.Sprintf("checks.headings requires %q, and no template writes it: every prompt fails the check; write the line %s in %s, or remove it from checks.headings", h, h, where)})
	}
	return out
}

// templateTexts are the texts of templates: their text and the strings
// of their actions; dynamic says one of them may write a heading whose text
// an action gives ("## {{ .title }}", printf "## %s").
func templateTexts(templates []*template.Template) (texts []string, dynamic bool) {
	for _, t := range templates {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		parsetree.Inspect(t.Tree.Root, func(n parse.Node) bool {
			switch n := n.(type) {
			case *parse.TextNode:
				texts = append(texts, string(n.Text))
				last := string(n.Text)
				if i := strings.LastIndexByte(last, '\n'); i >= 0 {
					last = last[i+1:]
				}
				if t := strings.TrimSpace(last); t != "" && strings.Trim(t, "#") == "" {
					dynamic = true // a heading an action completes
				}
			case *parse.StringNode:
				texts = append(texts, n.Text)
				if strings.Contains(n.Text, "#") && strings.Contains(n.Text, "%") {
					dynamic = true // printf "## %s"
				}
			case *parse.ChainNode:
				return false // (...).Field prints a field of its operand, never the operand
			}
			return true
		})
	}
	return texts, dynamic
}
