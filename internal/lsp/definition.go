package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"gopkg.in/yaml.v3"
)

// definition jumps from a field to its property in the schema file, from
// a template's name to its file (or its define), and from a section listed
// in prompt.yaml to its template (and from schema: to the schema).
func (s *Server) definition(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	p, text, sn, ok := s.document(uri)
	if !ok {
		return nil, nil
	}
	off := offsetOf(text, pos)
	kind, variant := classify(p)
	dir := "templates/" + variant + "/"
	var loc *protocol.Location
	switch kind {
	case kindTemplate:
		a := s.analysis(sn, variant)
		at, ok := a.at(templateName(p), text, off)
		switch {
		case !ok:
		case at.field != "":
			if pos := at.parent.About(at.field).Position; pos != "" {
				loc = s.locate(sn, pos)
			}
		case at.partial != "":
			loc = s.templateLocation(sn, a, at.partial)
		}
	case kindExample:
		if about, _, _, ok := s.exampleKey(sn, variant, text, pos); ok {
			loc = s.locate(sn, about.Position)
		}
	case kindManifest:
		key, value, ok := manifestValueAt(text, off)
		switch {
		case !ok:
		case key == "sections":
			if _, exists := sn.text(dir + value + ".md.tmpl"); exists {
				loc = &protocol.Location{URI: uriOf(sn.root, dir+value+".md.tmpl")}
			}
		case key == "schema":
			if _, exists := sn.text("schemas/" + value + ".schema.json"); exists {
				loc = &protocol.Location{URI: uriOf(sn.root, "schemas/"+value+".schema.json")}
			}
		}
	}
	if loc == nil {
		return nil, ctx.Err()
	}
	return []protocol.Location{*loc}, ctx.Err()
}

// locate is the location of an engine position (file:line:col).
func (s *Server) locate(sn *snapshot, pos string) *protocol.Location {
	p, line, col, ok := splitPosition(sn.root, pos)
	if !ok {
		return nil
	}
	text, _ := sn.text(p)
	r := rangeAt(newLineIndex(text), line, col)
	return &protocol.Location{URI: uriOf(sn.root, p), Range: protocol.Range{Start: r.Start, End: r.Start}}
}

// templateLocation is where the template of that name is: its file, or
// the define (or block) that names it.
func (s *Server) templateLocation(sn *snapshot, a *analysis, name string) *protocol.Location {
	if _, ok := sn.text(a.dir + name); ok {
		return &protocol.Location{URI: uriOf(sn.root, a.dir+name)}
	}
	for _, f := range a.templateFiles() {
		text, _ := sn.text(a.dir + f)
		for _, act := range actions(text) {
			toks := tokens(text, act.body, act.bodyEnd)
			if len(toks) > 1 && toks[0].kind == tokWord && (toks[0].text == "define" || toks[0].text == "block") &&
				toks[1].kind == tokString && strings.Trim(toks[1].text, "\"`") == name {
				at := positionOf(text, act.start)
				return &protocol.Location{URI: uriOf(sn.root, a.dir+f), Range: protocol.Range{Start: at, End: at}}
			}
		}
	}
	return nil
}

// manifestValueAt finds the scalar of prompt.yaml under the cursor that is
// a top-level key's value or an item of it: sections: [a, b] gives
// ("sections", "b") on b.
func manifestValueAt(text string, off int) (key, value string, ok bool) {
	var root yaml.Node
	if yaml.Unmarshal([]byte(text), &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return "", "", false
	}
	cur := positionOf(text, off)
	line, col := int(cur.Line)+1, int(cur.Character)+1
	on := func(n *yaml.Node) bool {
		return n.Kind == yaml.ScalarNode && n.Line == line && col >= n.Column && col <= n.Column+len(n.Value)
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if on(v) {
			return k.Value, v.Value, true
		}
		if v.Kind == yaml.SequenceNode {
			for _, item := range v.Content {
				if on(item) {
					return k.Value, item.Value, true
				}
			}
		}
	}
	return "", "", false
}
