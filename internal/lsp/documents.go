package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
)

// document is one file the editor has open: its text as typed, unsaved.
type document struct {
	uri     protocol.DocumentURI
	path    string // slash path inside the library: "templates/space/goals.md.tmpl"
	version int32
	text    string
}

// change is one entry of didChange's contentChanges. Range is absent for
// a change that replaces the whole text (full sync), which the protocol
// package's type cannot tell from a range at 0:0.
type change struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// apply makes the changes to text, in order, as the protocol says: each
// range refers to the text the previous change left.
func apply(text string, changes []change) string {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, end := offsetOf(text, c.Range.Start), offsetOf(text, c.Range.End)
		if end < start {
			start, end = end, start
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text
}

// pathOf maps a document's URI to its slash path inside the library at
// root; ok is false for anything else (another folder, an unsaved buffer
// without a file, another scheme).
func pathOf(root string, uri protocol.DocumentURI) (string, bool) {
	u, err := url.Parse(string(uri))
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	abs := filepath.Clean(filepath.FromSlash(u.Path))
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// uriOf is the file URI of a slash path inside the library at root.
func uriOf(root, p string) protocol.DocumentURI {
	abs := filepath.ToSlash(filepath.Join(root, filepath.FromSlash(p)))
	if !strings.HasPrefix(abs, "/") {
		abs = "/" + abs // a Windows drive
	}
	return protocol.DocumentURI((&url.URL{Scheme: "file", Path: abs}).String())
}

// fileKind says what a library file is, and so what the server offers in it.
type fileKind int

const (
	kindOther    fileKind = iota
	kindTemplate          // templates/<variant>/**/*.tmpl
	kindManifest          // templates/<variant>/prompt.yaml
	kindExample           // templates/<variant>/examples/*.yaml|yml|json
	kindSchema            // schemas/*.schema.json
)

// classify says what the file at a library path is, and names its
// variant (for a schema, the schema's name).
func classify(p string) (fileKind, string) {
	parts := strings.Split(p, "/")
	switch {
	case len(parts) == 2 && parts[0] == "schemas" && strings.HasSuffix(parts[1], ".schema.json"):
		return kindSchema, strings.TrimSuffix(parts[1], ".schema.json")
	case len(parts) < 3 || parts[0] != "templates":
		return kindOther, ""
	case len(parts) == 3 && parts[2] == "prompt.yaml":
		return kindManifest, parts[1]
	case len(parts) == 4 && parts[2] == "examples" && isExample(parts[3]):
		return kindExample, parts[1]
	case strings.HasSuffix(p, ".tmpl") && parts[2] != "examples":
		return kindTemplate, parts[1]
	}
	return kindOther, parts[1]
}

func isExample(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json")
}

// templateName is a template's name in its variant's set: its path
// inside the variant folder ("goals.md.tmpl", "modes/code.md.tmpl").
func templateName(p string) string {
	parts := strings.SplitN(p, "/", 3)
	if len(parts) < 3 {
		return p
	}
	return parts[2]
}

func (s *Server) didOpen(uri protocol.DocumentURI, version int32, text string) {
	s.mu.Lock()
	p, ok := "", false
	if s.root != "" {
		p, ok = pathOf(s.root, uri)
	}
	if !ok {
		s.mu.Unlock()
		s.log.Debug("not in the library; ignored", "uri", uri)
		return
	}
	s.docs[p] = &document{uri: uri, path: p, version: version, text: text}
	s.gen++
	s.mu.Unlock()
	s.recheck(s.affected(p)...)
}

func (s *Server) didChange(uri protocol.DocumentURI, version int32, changes []change) {
	s.mu.Lock()
	var d *document
	if s.root != "" {
		if p, ok := pathOf(s.root, uri); ok {
			d = s.docs[p]
		}
	}
	if d == nil {
		s.mu.Unlock()
		return
	}
	d.text = apply(d.text, changes)
	d.version = version
	s.gen++
	s.mu.Unlock()
	s.recheck(s.affected(d.path)...)
}

func (s *Server) didClose(uri protocol.DocumentURI) {
	s.mu.Lock()
	p, ok := "", false
	if s.root != "" {
		p, ok = pathOf(s.root, uri)
	}
	if !ok || s.docs[p] == nil {
		s.mu.Unlock()
		return
	}
	delete(s.docs, p)
	s.gen++
	s.mu.Unlock()
	s.recheck(s.affected(p)...) // the file on disk is what counts now
}

// document returns the open document at uri, or its file's text when it
// is a library file not open; ok is false outside the library.
func (s *Server) document(uri protocol.DocumentURI) (p, text string, sn *snapshot, ok bool) {
	sn = s.snapshot()
	if sn == nil {
		return "", "", nil, false
	}
	p, ok = pathOf(sn.root, uri)
	if !ok {
		return "", "", nil, false
	}
	text, ok = sn.text(p)
	return p, text, sn, ok
}

func (d *document) String() string { return fmt.Sprintf("%s@%d", d.path, d.version) }
